# Slipway's own image, used by eventstore.compose.yml. Caddy and Git come from Debian.
FROM node:20-bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends caddy git ca-certificates \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src src
COPY commands commands
COPY projections projections
RUN npm run build && npm prune --omit=dev
ENV SLIPWAY_DATA_DIR=/data SLIPWAY_HOST=0.0.0.0 SLIPWAY_PORT=3000
VOLUME /data
EXPOSE 3000 80
ENTRYPOINT ["/app/dist/src/cli/main.js"]
CMD ["serve"]
