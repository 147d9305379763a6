"""Sends one request with Python's urllib and prints {status, headers, body} as JSON.

Usage: urllib-request.py METHOD URL BODY_BYTES [HEADER=VALUE ...]
The body is BODY_BYTES bytes of 'a' (0: no body). HTTP errors are answers, not failures.
"""
import json
import sys
import urllib.error
import urllib.request

method, url, size = sys.argv[1], sys.argv[2], int(sys.argv[3])
headers = dict(arg.split("=", 1) for arg in sys.argv[4:])
data = b"a" * size if size > 0 else None
request = urllib.request.Request(url, data=data, method=method, headers=headers)
try:
    with urllib.request.urlopen(request, timeout=60) as response:
        status, answer, body = response.status, dict(response.headers), response.read()
except urllib.error.HTTPError as error:
    status, answer, body = error.code, dict(error.headers), error.read()
print(json.dumps({"status": status, "headers": {k.lower(): v for k, v in answer.items()}, "body": body.decode("utf-8", "replace")}))
