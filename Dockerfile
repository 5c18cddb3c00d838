# UNTESTED here (no Docker engine on the project's machines); used by compose.yaml.
FROM node:20-bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends chromium xvfb ca-certificates && rm -rf /var/lib/apt/lists/*
WORKDIR /app
# The whole tree before installing: `npm ci` runs the prepare script, which builds the dashboard (web/) into web/dist.
COPY . .
RUN npm ci --omit=dev --no-audit --no-fund
ENV NODE_ENV=production CHROMIUM_PATH=/usr/bin/chromium DATA_DIR=/data
VOLUME /data
EXPOSE 8080
CMD ["node", "--import", "tsx", "infra/main.ts"]
