# UNTESTED here (no Docker engine on the project's machines); used by compose.yaml.
FROM node:20-bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends chromium xvfb ca-certificates && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json .npmrc ./
RUN npm ci --omit=dev --no-audit --no-fund
COPY . .
ENV NODE_ENV=production CHROMIUM_PATH=/usr/bin/chromium DATA_DIR=/data
VOLUME /data
EXPOSE 8080
CMD ["node", "--import", "tsx", "infra/main.ts"]
