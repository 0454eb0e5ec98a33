# syntax=docker/dockerfile:1

# Build stage: the Nest CLI and TypeScript are dev dependencies, so install everything, compile, then prune to the
# production dependencies so that the runtime stage can take node_modules as it is.
FROM node:20-bookworm-slim AS build
WORKDIR /app
# swagger-ui-dist depends on @scarf/scarf, whose install script otherwise reports the install to an analytics service.
ENV SCARF_ANALYTICS=false
# The manifests first: the dependency layer is then rebuilt only when they change, not on every source edit.
COPY package.json package-lock.json ./
# The client package in sdk/ is an npm workspace: npm ci needs its manifest to lay out node_modules.
COPY sdk/package.json ./sdk/
RUN npm ci --no-audit --no-fund
COPY nest-cli.json tsconfig.json tsconfig.build.json ./
COPY src ./src
# The dashboard (web/) is built by Vite into dist/web by the same `npm run build`.
COPY web ./web
RUN npm run build && npm prune --omit=dev --no-audit --no-fund

FROM node:20-bookworm-slim
ENV NODE_ENV=production
WORKDIR /app
# Owned by root and read-only to the service. package.json comes along because the service reads its version there.
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
# DATA_DIR (./.data) is the one place the service writes: the embedded PostgreSQL it starts when DATABASE_URL is unset.
RUN mkdir .data && chown node:node .data
USER node
EXPOSE 3000
# The slim image has no curl or wget; node's own fetch does the check. A hung request counts as a failure.
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:3000/health', { signal: AbortSignal.timeout(4000) }).then((response) => process.exit(response.ok ? 0 : 1), () => process.exit(1))"]
# The same node flags as `npm run start:prod` (see the README's Performance section for why the heap is bounded).
CMD ["node", "--max-old-space-size=512", "dist/src/main.js"]
