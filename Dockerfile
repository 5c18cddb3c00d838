# UNTESTED here (no Docker engine on the project's machines); used by compose.yaml.
# The light tier's HTTP client (fetchers/light/chromium-client) is a Go program.
FROM golang:1.24-bookworm AS light-client
WORKDIR /src
COPY fetchers/light/chromium-client/ .
RUN go build -trimpath -o /chromium-client .

FROM node:20-bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends chromium xvfb ca-certificates && rm -rf /var/lib/apt/lists/*
WORKDIR /app
# The whole tree before installing: `npm ci` runs the prepare script, which builds the dashboard (web/) into web/dist.
COPY . .
COPY --from=light-client /chromium-client .build/chromium-client
RUN npm ci --omit=dev --no-audit --no-fund
# HOST: the service listens on loopback unless told otherwise; in a container it must answer on every interface.
ENV NODE_ENV=production CHROMIUM_PATH=/usr/bin/chromium DATA_DIR=/data HOST=0.0.0.0
VOLUME /data
EXPOSE 8080
CMD ["node", "--import", "tsx", "infra/main.ts"]
