"""Django settings, read from the environment with defaults that need no server.

Defaults: SQLite in var/, kombu's filesystem broker in var/, an in-process channel layer.
Set DATABASE_URL, CELERY_BROKER_URL and REDIS_URL to run on PostgreSQL, Redis or RabbitMQ
(docs/operations.md).
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import dj_database_url

from execution import isolation as _sandbox_isolation
from foundation.broker import transport_for
from foundation.env import (
    ConfigError,
    env_bool,
    env_int,
    env_paths,
    env_str,
    env_url,
    redact,
    redact_url,
)

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
    "drf_spectacular_sidecar",  # Swagger UI and Redoc, served locally
    "channels",
    "runs",
    "rewards",
    "problems",
    "scoring",
    "training",
    "timing",
    "evaluations",
    "judges",
    "workers",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "codeopt_site.middleware.InputPolicyMiddleware",
    "codeopt_site.middleware.DatabaseUnavailableMiddleware",
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
    raise ConfigError(
        f"DATABASE_URL={redact_url(DATABASE_URL)!r} cannot be parsed: "
        f"{redact(str(exc), DATABASE_URL)}"
    ) from None
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
            # keys of one deployment (or test session) apart from another's on a shared Redis
            "CONFIG": {"hosts": [REDIS_URL], "prefix": env_str("REDIS_CHANNEL_PREFIX") or "asgi"},
        }
    }
else:
    # One process (the ASGI server) holds every websocket. What other processes (workers,
    # scripts) broadcast reaches it through the database (runs/live.py).
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
# filesystem://: kombu's filesystem transport, whole messages only (foundation/broker.py)
CELERY_BROKER_TRANSPORT = transport_for(CELERY_BROKER_URL)
if CELERY_BROKER_URL.startswith("filesystem"):
    for sub in ("queue", "control", "processed"):
        (_broker_dir / sub).mkdir(parents=True, exist_ok=True)
CELERY_RESULT_BACKEND = env_str("CELERY_RESULT_BACKEND") or None
CELERY_TASK_ALWAYS_EAGER = env_bool("CELERY_TASK_ALWAYS_EAGER", False)
CELERY_TASK_DEFAULT_QUEUE = "default"
CELERY_TASK_ROUTES = {
    "timing.run_timing_job": {"queue": "timing"},
    "problems.run_dataset_build": {"queue": "timing"},
    "training.train": {"queue": "gpu"},
    "scoring.score_rollouts": {"queue": "timing"},
    "scoring.score_part": {"queue": "timing"},
    # an evaluation that generates runs on its own lane (`eval`, where models run, beside the
    # training runs of `gpu`); one of uploaded programs where programs are timed
    # (Evaluation.queue picks)
    "evaluations.evaluate": {"queue": "eval"},
    # speedup-source judging: the analyzer is CPU-light, the LLM judge waits on its endpoint
    "judges.judge": {"queue": "judge"},
}
# A timing worker takes one job at a time: no job waits behind another in a prefetch buffer.
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_WORKER_HIJACK_ROOT_LOGGER = False
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True

# How long a starting process (web, worker, management command) waits for each service it
# needs before it exits naming the variable to fix (foundation.startup): a few seconds, so
# that a wrong URL stops a deployment at once instead of failing its first jobs.
STARTUP_CHECK_TIMEOUT_S = env_int("CODEOPT_STARTUP_TIMEOUT_S", 5, minimum=1)
# A worker silent this long is dead: its running jobs are sent again (foundation.jobs)
CODEOPT_WORKER_DEAD_AFTER_S = env_int("CODEOPT_WORKER_DEAD_AFTER_S", 30, minimum=2)

# --- metrics ingest ---------------------------------------------------------------------------
METRICS_MAX_BATCH_POINTS = env_int("METRICS_MAX_BATCH_POINTS", 10_000, minimum=1)
METRICS_DEFAULT_MAX_POINTS = env_int("METRICS_DEFAULT_MAX_POINTS", 2_000, minimum=10)

# --- input policy (foundation/inputs.py; docs/security.md) ------------------------------------
# Characters of one query-string value, and of one form field or JSON string.
CODEOPT_MAX_QUERY_CHARS = env_int("CODEOPT_MAX_QUERY_CHARS", 2_000, minimum=100)
CODEOPT_MAX_FIELD_CHARS = env_int("CODEOPT_MAX_FIELD_CHARS", 1_000_000, minimum=1_000)
# An uploaded file (completions, judge pairs), checked before anything is parsed or stored.
CODEOPT_MAX_UPLOAD_BYTES = env_int("CODEOPT_MAX_UPLOAD_BYTES", 50 * 1024 * 1024, minimum=1024)
CODEOPT_MAX_UPLOAD_LINES = env_int("CODEOPT_MAX_UPLOAD_LINES", 20_000, minimum=1)
# Pairs one judge batch may hold (each is an LLM call or an analyzer pass).
CODEOPT_MAX_JUDGE_PAIRS = env_int("CODEOPT_MAX_JUDGE_PAIRS", 2_000, minimum=1)
# Pairs measured at once for their evidence (each under callgrind: one core each).
CODEOPT_EVIDENCE_CONCURRENCY = env_int("CODEOPT_EVIDENCE_CONCURRENCY", 1, minimum=1)

# --- scoring API (POST /api/scoring/; scoring/) ------------------------------------------
# Programs (or completions) one request may hold, over all its groups.
CODEOPT_SCORING_MAX_PROGRAMS = env_int("CODEOPT_SCORING_MAX_PROGRAMS", 512, minimum=1)
# UTF-8 bytes of one program or completion (the sandbox refuses a source over 1 MiB).
CODEOPT_SCORING_MAX_PROGRAM_BYTES = env_int("CODEOPT_SCORING_MAX_PROGRAM_BYTES", 65_536, minimum=64)
# Scoring jobs one user (one API token) may have queued or running at once; past it a 429.
CODEOPT_SCORING_MAX_IN_FLIGHT = env_int("CODEOPT_SCORING_MAX_IN_FLIGHT", 8, minimum=1)
# The longest long-poll of GET /api/scoring/<id>/?wait=SECONDS.
CODEOPT_SCORING_MAX_WAIT_S = env_int("CODEOPT_SCORING_MAX_WAIT_S", 60, minimum=1)
# Samples sent one at a time (verl's reward loop, OpenRLHF's remote reward) wait this long
# by default for the rest of their group (scoring/services/gathering.py), at most
# GATHER_MAX_WINDOW_S; a gathered group is watched for at most GATHER_MAX_WAIT_S.
CODEOPT_GATHER_WINDOW_S = env_int("CODEOPT_GATHER_WINDOW_S", 30, minimum=0)
CODEOPT_GATHER_MAX_WINDOW_S = env_int("CODEOPT_GATHER_MAX_WINDOW_S", 150, minimum=1)
CODEOPT_GATHER_MAX_WAIT_S = env_int("CODEOPT_GATHER_MAX_WAIT_S", 900, minimum=10)
# Gathered groups are one job each: a rollout batch's prompts may be in flight at once.
CODEOPT_GATHER_MAX_IN_FLIGHT = env_int("CODEOPT_GATHER_MAX_IN_FLIGHT", 256, minimum=1)
# A request of gathered samples answers within this (OpenRLHF gives up after 180 s).
CODEOPT_GATHER_ANSWER_S = env_int("CODEOPT_GATHER_ANSWER_S", 170, minimum=1)

# A form or a JSON body larger than this (bytes) is refused by Django itself (400): room for
# the largest scoring request (every program at its limit, JSON-escaped) and a 4-byte-per-
# character form field at its limit, whichever is larger.
DATA_UPLOAD_MAX_MEMORY_SIZE = max(
    CODEOPT_MAX_FIELD_CHARS * 4,
    2 * CODEOPT_SCORING_MAX_PROGRAMS * CODEOPT_SCORING_MAX_PROGRAM_BYTES + 1024 * 1024,
)

# --- sandbox ----------------------------------------------------------------------------------
# The engine reads its own variables (CODEOPT_SANDBOX_ISOLATION, CODEOPT_CGROUP_ROOT,
# CODEOPT_SANDBOX_UID_BASE, CODEOPT_SANDBOX_UID_SLOTS, CODEOPT_SANDBOX_LOCK_DIR: it runs without
# Django too); they are read here once so that a bad value stops the start-up.
try:
    _sandbox_isolation.IsolationSettings.from_environ()
except ValueError as exc:
    raise ConfigError(str(exc)) from None
# Sandbox errors (failed starts, retried or not) stored on the jobs of the last hour above
# which /healthz says "degraded": a healthy host has none; a few come from a host that ran out
# of processes for a moment, more mean something is wrong (docs/security.md).
SANDBOX_ERRORS_DEGRADED = env_int("SANDBOX_ERRORS_DEGRADED", 10, minimum=0)

# --- paths users may name --------------------------------------------------------------------
# A Timing job's package folder and a base model's folder, typed into a page, must lie inside
# one of these roots (foundation/paths.py, docs/security.md "Paths from users"); anywhere
# else the answer is one fixed message, whether the path exists or not. os.pathsep-separated.
CODEOPT_PACKAGE_ROOTS = env_paths(
    "CODEOPT_PACKAGE_ROOTS", [BASE_DIR / "problems" / "packs", VAR_DIR / "packages"]
)
CODEOPT_MODEL_ROOTS = env_paths("CODEOPT_MODEL_ROOTS", [VAR_DIR / "models"])
# Where named base models (lm/base_models.py) are converted to, once, from the
# package that ships them: a folder under the first model root unless set. Every process of a
# deployment (web, workers) should name the same folder, or each converts its own copy.
CODEOPT_MODEL_CACHE = Path(env_str("CODEOPT_MODEL_CACHE") or CODEOPT_MODEL_ROOTS[0])

# --- REST framework ---------------------------------------------------------------------------
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.TokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_PAGINATION_CLASS": "foundation.paging.StrictLimitOffsetPagination",
    "PAGE_SIZE": 100,
    # Trainers written in Python send bare NaN/Infinity (json.dumps does): accept them.
    "STRICT_JSON": False,
    "DEFAULT_PARSER_CLASSES": [
        "codeopt_site.middleware.InputPolicyJSONParser",  # the API speaks JSON only
    ],
}
SPECTACULAR_SETTINGS = {
    "TITLE": "codeopt API",
    "DESCRIPTION": "Training runs and their metrics; scoring for trainers (TRL, verl, "
    "OpenRLHF); evaluations, timing jobs, judges, reward configurations and dataset builds.",
    "VERSION": "0.1.0",
    # the schema document is not an operation of itself (its `lang` and `format` are
    # drf-spectacular's, which a client fuzzing the API would otherwise be sent to)
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # request bodies have their own components (no read-only fields in them)
    "COMPONENT_SPLIT_REQUEST": True,
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "foundation.schema.document_errors",
    ],
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

# --- per-host calibration (scoring/calibration.py; docs/operations.md) ------------------
# Seconds between two anchor calibrations of a timing worker (0: never calibrate). A factor
# older than twice this is stale: the host stops taking scoring work.
CODEOPT_ANCHOR_INTERVAL_S = env_int("CODEOPT_ANCHOR_INTERVAL_S", 600, minimum=0)
# Max/min ratio of the per-anchor factors, in percent over 1 (100: 2.0x), past which a host's
# factor is unstable (no single factor fits it) and the host stops taking scoring work.
CODEOPT_ANCHOR_MAX_SPREAD_PCT = env_int("CODEOPT_ANCHOR_MAX_SPREAD_PCT", 100, minimum=1)
# A factor within this many percent of 1 is the anchors' own noise, not a slower host, and
# is not applied (one host of the shared 2-vCPU VM measured itself at 0.73-1.15): scoring
# then divides by 1. 0 applies every factor.
CODEOPT_ANCHOR_MIN_SHIFT_PCT = env_int("CODEOPT_ANCHOR_MIN_SHIFT_PCT", 35, minimum=0)
