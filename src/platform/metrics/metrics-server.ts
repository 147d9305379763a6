import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';

/**
 * The metrics listener: a plain HTTP server, apart from the public port, that answers only
 * `GET /metrics` (Prometheus text format). It opens before the gateway's main port and closes
 * first at shutdown, dropping kept-alive scraper connections.
 */
export class MetricsServer {
  private constructor(
    private readonly server: Server,
    readonly port: number,
  ) {}

  static listen(registry: Registry, host: string, port: number, logger: Logger): Promise<MetricsServer> {
    const server = createServer((req, res) => {
      const path = (req.url ?? '/').split('?')[0];
      if (path !== '/metrics') {
        res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('not found: the metrics listener serves GET /metrics only\n');
        return;
      }
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        res.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain; charset=utf-8' }).end('method not allowed\n');
        return;
      }
      registry.metrics().then(
        (text) => {
          res.writeHead(200, { 'content-type': registry.contentType, 'cache-control': 'no-store' });
          res.end(req.method === 'HEAD' ? undefined : text);
        },
        (error: unknown) => {
          logger.error({ err: error }, 'metrics collection failed');
          res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end('metrics collection failed\n');
        },
      );
    });
    // A scrape is one small request: a client that sends nothing is dropped rather than held.
    server.headersTimeout = 10_000;
    server.requestTimeout = 10_000;
    return new Promise((resolve, reject) => {
      server.once('error', (error: NodeJS.ErrnoException) => {
        reject(
          new Error(
            `could not listen on ${host}:${port} for metrics (${error.code === 'EADDRINUSE' ? 'address in use' : (error.code ?? error.message)}); set METRICS_PORT`,
          ),
        );
      });
      server.listen(port, host, () => {
        server.removeAllListeners('error');
        server.on('error', (error) => logger.error({ err: error }, 'metrics listener failed'));
        resolve(new MetricsServer(server, (server.address() as AddressInfo).port));
      });
    });
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }
}
