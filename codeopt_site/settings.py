"""Django settings, read from the environment with defaults that need no server.

Defaults: SQLite in var/, kombu's filesystem broker in var/, an in-process channel layer.
Set DATABASE_URL, CELERY_BROKER_URL and REDIS_URL to run on PostgreSQL, Redis or RabbitMQ
(docs/operations.md).
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import dj_database_url

from codeopt_site.env import ConfigError, env_bool, env_int, env_str, env_url

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(env_str("CODEOPT_VAR_DIR") or BASE_DIR / "var")
VAR_DIR.mkdir(parents=True, exist_ok=True)

DEBUG = env_bool("DEBUG", False)
SECRET_KEY = env_str("SECRET_KEY")
if not SECRET_KEY:
    if not DEBUG:
        raise ConfigError("SECRET_KEY is required unless DEBUG=1")
    SECRET_KEY = "insecure-development-key-only-for-DEBUG"

ALLOWED_HOSTS = [h.strip() for h in (env_str("ALLOWED_HOSTS") or "127.0.0.1,localhost").split(",")]
CSRF_TRUSTED_ORIGINS = [
    o.strip() for o in (env_str("CSRF_TRUSTED_ORIGINS") or "").split(",") if o.strip()
]

INSTALLED_APPS = [
    "daphne",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "drf_spectacular",
    "channels",
    "runs",
    "rewards",
    "workers",
    "problems",
    "evaluations",
    "judges",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "codeopt_site.urls"
ASGI_APPLICATION = "codeopt_site.asgi.application"
WSGI_APPLICATION = None

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

# --- database -------------------------------------------------------------------------------
_default_db = f"sqlite:///{VAR_DIR / 'codeopt.sqlite3'}"
DATABASE_URL = env_url(
    "DATABASE_URL", _default_db, schemes={"sqlite", "postgres", "postgresql", "pgsql"}
)
try:
    DATABASES = {
        "default": dj_database_url.parse(
            DATABASE_URL, conn_max_age=env_int("DB_CONN_MAX_AGE", 60, minimum=0)
        )
    }
except ValueError as exc:  # dj-database-url raises ValueError on a malformed URL
    raise ConfigError(f"DATABASE_URL={DATABASE_URL!r} cannot be parsed: {exc}") from None
if DATABASES["default"]["ENGINE"].endswith("sqlite3"):
    # WAL lets the web server read while the worker or an ingest writes.
    DATABASES["default"]["OPTIONS"] = {
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
        "transaction_mode": "IMMEDIATE",
        "timeout": 20,
    }
    DATABASES["default"]["CONN_MAX_AGE"] = 0
# The test database is a file (SQLite) or a real database, never SQLite's in-memory one:
# the test suite's ASGI server and Celery worker are separate processes that must see it.
_test_name = env_str("TEST_DATABASE_NAME") or (
    str(VAR_DIR / "test-codeopt.sqlite3")
    if DATABASES["default"]["ENGINE"].endswith("sqlite3")
    else "test_" + DATABASES["default"]["NAME"]
)
DATABASES["default"]["TEST"] = {"NAME": _test_name}
if DATABASES["default"]["ENGINE"].endswith("postgresql"):
    # Send parameters apart from the SQL: a 5,000-point batch's arrays are not escaped and
    # spliced into the statement text in Python (docs/benchmarks.md).
    DATABASES["default"].setdefault("OPTIONS", {})["server_side_binding"] = True
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# --- channels -------------------------------------------------------------------------------
REDIS_URL = env_url("REDIS_URL", "", schemes={"redis", "rediss", "unix"})
if REDIS_URL:
    CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "channels_redis.core.RedisChannelLayer",
            "CONFIG": {"hosts": [REDIS_URL]},
        }
    }
else:
    # One process (the ASGI server) holds every websocket and receives every ingest, so an
    # in-process layer is enough on one machine.
    CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}

# --- celery ---------------------------------------------------------------------------------
_broker_dir = VAR_DIR / "broker"
CELERY_BROKER_URL = env_url(
    "CELERY_BROKER_URL",
    "filesystem://",
    schemes={"filesystem", "redis", "rediss", "amqp", "amqps", "pyamqp", "sqla+sqlite", "memory"},
)
CELERY_BROKER_TRANSPORT_OPTIONS = (
    {
        "data_folder_in": str(_broker_dir / "queue"),
        "data_folder_out": str(_broker_dir / "queue"),
        "control_folder": str(_broker_dir / "control"),
        "processed_folder": str(_broker_dir / "processed"),
        "store_processed": False,
    }
    if CELERY_BROKER_URL.startswith("filesystem")
    # Redis hands an unacknowledged message to another worker after this long: tasks that are
    # acknowledged when they end (training runs, timing jobs) must finish well within it.
    else {"visibility_timeout": env_int("CELERY_VISIBILITY_TIMEOUT_S", 86_400, minimum=60)}
    if CELERY_BROKER_URL.startswith(("redis", "rediss"))
    else {}
)
if CELERY_BROKER_URL.startswith("filesystem"):
    for sub in ("queue", "control", "processed"):
        (_broker_dir / sub).mkdir(parents=True, exist_ok=True)
CELERY_RESULT_BACKEND = env_str("CELERY_RESULT_BACKEND") or None
CELERY_TASK_ALWAYS_EAGER = env_bool("CELERY_TASK_ALWAYS_EAGER", False)
CELERY_TASK_DEFAULT_QUEUE = "default"
CELERY_TASK_ROUTES = {
    "workers.run_timing_job": {"queue": "timing"},
    "workers.run_dataset_build": {"queue": "timing"},
    "workers.train": {"queue": "gpu"},
    "workers.score_rollouts": {"queue": "timing"},
    # an evaluation that generates runs where models run; one of uploaded programs, where
    # programs are timed (services.do_create_evaluation picks)
    "workers.evaluate": {"queue": "gpu"},
    # speedup-source judging: the analyzer is CPU-light, the LLM judge waits on its endpoint
    "workers.judge": {"queue": "judge"},
}
# A timing worker takes one job at a time: no job waits behind another in a prefetch buffer.
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_WORKER_HIJACK_ROOT_LOGGER = False
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True

# --- metrics ingest ---------------------------------------------------------------------------
METRICS_MAX_BATCH_POINTS = env_int("METRICS_MAX_BATCH_POINTS", 10_000, minimum=1)
METRICS_DEFAULT_MAX_POINTS = env_int("METRICS_DEFAULT_MAX_POINTS", 2_000, minimum=10)

# --- REST framework ---------------------------------------------------------------------------
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.TokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_PAGINATION_CLASS": "rest_framework.pagination.LimitOffsetPagination",
    "PAGE_SIZE": 100,
    # Trainers written in Python send bare NaN/Infinity (json.dumps does): accept them.
    "STRICT_JSON": False,
}
SPECTACULAR_SETTINGS = {
    "TITLE": "codeopt API",
    "DESCRIPTION": "Training runs and their per-step metrics.",
    "VERSION": "0.1.0",
}

# --- auth, i18n, static -----------------------------------------------------------------------
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
]
LOGIN_URL = "/accounts/login/"
LOGIN_REDIRECT_URL = "/"
LOGOUT_REDIRECT_URL = "/accounts/login/"
LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "/static/"
STATIC_ROOT = VAR_DIR / "static"
STATIC_ROOT.mkdir(exist_ok=True)
# plotly.min.js is served from the installed plotly package: one version, no vendored copy.
STATICFILES_DIRS = [
    BASE_DIR / "static",
    ("plotly", Path(importlib.util.find_spec("plotly").origin).parent / "package_data"),
]
WHITENOISE_USE_FINDERS = True
WHITENOISE_AUTOREFRESH = DEBUG

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL") or "INFO"},
    "loggers": {"daphne": {"level": "WARNING"}, "django.channels.server": {"level": "WARNING"}},
}

# The LLM judge's endpoint (docs/judges.md): checked here so that a bad value stops the start.
try:
    from judges.llm import LLMSettings

    LLMSettings.from_env()
except ValueError as exc:
    raise ConfigError(str(exc)) from None
