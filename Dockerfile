# CPU image (the default deployment). Multi-stage: compilers and dev dependencies stay in the build
# stage; the runtime stage holds the compiled gateway, production node_modules, the native addon and
# the bundled models, and runs as the unprivileged `node` user with /data as a volume.
#   docker build -t speech-gateway .
#   docker run -p 8080:8080 -v gateway-data:/data speech-gateway
ARG NODE_IMAGE=node:20.19-bookworm-slim

FROM ${NODE_IMAGE} AS build
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      build-essential cmake python3 ca-certificates \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
# onnxruntime-node's postinstall downloads its CUDA provider (hundreds of MB) on linux/x64 unless told
# not to. npm 11 never runs it (package.json allowScripts); npm 10, which Node 20 images ship, ignores
# allowScripts and runs it: this setting makes it exit at once on every npm version.
ENV ONNXRUNTIME_NODE_INSTALL=skip
COPY . .
# npm ci builds the native addon (cmake-js) and compiles the gateway's TypeScript, src/ only
# (prepare: tsconfig.src.json; test/ is not in the build context); then drop dev packages.
# `npm run lint:docker` replays these steps in the build context (scripts/docker-context-check.ts).
RUN npm ci && npm prune --omit=dev && rm -rf build/native/CMakeFiles build/native/Release/obj.target

FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8080 \
    METRICS_HOST=0.0.0.0 \
    METRICS_PORT=9464 \
    DATA_DIR=/data
WORKDIR /app
COPY --from=build /app/package.json ./package.json
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/build/native/Release/gateway_native.node ./build/native/Release/gateway_native.node
COPY --from=build /app/models ./models
RUN mkdir -p /data && chown node:node /data
VOLUME ["/data"]
# 9464: Prometheus metrics; publish it only to the network Prometheus scrapes from.
EXPOSE 8080 9464
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||8080)+'/health').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
USER node
CMD ["node", "--enable-source-maps", "dist/src/main.js"]
