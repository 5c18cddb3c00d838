# UNTESTED here (no Docker engine on the project's machines); used by compose.yaml.
# The light tier's HTTP client (fetchers/light/chromium-client) is a Go program.
FROM golang:1.24-bookworm AS light-client
WORKDIR /src
COPY fetchers/light/chromium-client/ .
RUN go build -trimpath -o /chromium-client .

FROM node:20-bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends chromium xvfb ca-certificates && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY . .
COPY --from=light-client /chromium-client .build/chromium-client
# `npm install`, not `npm ci`: the lockfile cannot hold impit's optional binaries (see .ci/run). Without the install
# scripts, because the project's prepare script runs `tap build`, a dev tool the image leaves out; the dependencies'
# own scripts (better-sqlite3's binary) then run through `npm rebuild`, and the dashboard is built as prepare would.
RUN npm install --omit=dev --ignore-scripts --no-audit --no-fund && npm rebuild && node scripts/build-dashboard.mjs
# HOST: the service listens on loopback unless told otherwise; in a container it must answer on every interface.
ENV NODE_ENV=production CHROMIUM_PATH=/usr/bin/chromium DATA_DIR=/data HOST=0.0.0.0
VOLUME /data
EXPOSE 8080
CMD ["node", "--import", "tsx", "infra/main.ts"]
