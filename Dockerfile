# One image for the API replicas and the worker (docker-compose.yml picks the command).
# Node 24 is the active LTS (Node 20 is end of life; the code still runs on >= 20.19, see engines).
FROM node:24-slim
WORKDIR /app
COPY package.json package-lock.json ./
# tsx (which runs the TypeScript sources) is a runtime dependency, so dev tools can be left out.
RUN npm ci --omit=dev && npm cache clean --force
COPY . .
ENV PORT=3000 HOST=0.0.0.0
EXPOSE 3000
USER node
CMD ["npm", "start"]
