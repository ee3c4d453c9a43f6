# agentboard: multi-stage image. build compiles TypeScript; deps is the production install
# (`npm ci --omit=dev`, native modules built for this image); the runtime stage runs as the
# unprivileged `node` user with the SQLite file on a volume. test/e2e/production.test.ts runs
# the same production install, CMD and HEALTHCHECK outside Docker on every `npm test`.
FROM node:20-bookworm-slim AS toolchain
# better-sqlite3 compiles from source when no prebuilt binary can be downloaded.
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json .npmrc ./
COPY scripts ./scripts

FROM toolchain AS build
RUN npm ci --no-audit --no-fund --ignore-scripts
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build

FROM toolchain AS deps
RUN npm ci --omit=dev --no-audit --no-fund

FROM node:20-bookworm-slim
ENV NODE_ENV=production HOST=0.0.0.0 PORT=8787 DATABASE_URL=sqlite:/data/board.db
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
COPY models ./models
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME /data
EXPOSE 8787
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 8787) + '/health').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# Run node directly (not npm) so SIGTERM reaches the board and it drains requests in flight.
CMD ["node", "--no-allocation-site-pretenuring", "dist/cli/main.js", "serve"]
