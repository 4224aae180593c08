# One image for the API replicas and the worker (docker-compose.yml picks the command).
# Node 24 is the active LTS (Node 20 is end of life; the code still runs on >= 20.19, see engines).

# Compiles the TypeScript once, with the dev dependencies, so the service runs plain JavaScript.
FROM node:24-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
COPY clients/typescript/package.json clients/typescript/
RUN npm ci
COPY . .
RUN npm run build

FROM node:24-slim
WORKDIR /app
COPY package.json package-lock.json ./
COPY clients/typescript/package.json clients/typescript/
# No dev dependencies: `npm start` (scripts/start.mjs) then runs dist/ as built, without compiling.
# tsx stays (a runtime dependency) for the operator CLI, `npm run admin`.
RUN npm ci --omit=dev && npm cache clean --force
COPY . .
COPY --from=build /app/dist ./dist
ENV PORT=3000 HOST=0.0.0.0
EXPOSE 3000
USER node
CMD ["npm", "start"]
