"""S3-compatible object storage, shared by replication (Litestream) and the vector companion (LanceDB).

A location is ``s3://BUCKET/PREFIX`` plus an optional endpoint (MinIO, moto, any S3 API). Credentials come only
from the environment (``AWS_ACCESS_KEY_ID``, ``AWS_SECRET_ACCESS_KEY``, ``AWS_SESSION_TOKEN``), never from a
setting or a flag, and no message here ever repeats them. pyarrow's S3 filesystem (pyarrow is already a
dependency of LanceDB) probes a location with short timeouts, so a wrong endpoint, key or bucket is a one-line
error at once instead of a Litestream retrying forever.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from urllib.parse import urlparse

from scope_recall_engine.errors import ConfigError, InvalidInput

DEFAULT_REGION = "us-east-1"
CONNECT_TIMEOUT_S = 3
REQUEST_TIMEOUT_S = 10
# pyarrow's error codes and what they mean to an operator
_PROBLEMS = {
    "NO_SUCH_BUCKET": "the bucket {bucket} does not exist at {where}",
    "INVALID_ACCESS_KEY_ID": "{where} does not know the access key in AWS_ACCESS_KEY_ID",
    "SIGNATURE_DOES_NOT_MATCH": "{where} refused AWS_SECRET_ACCESS_KEY (the signature does not match)",
    "ACCESS_DENIED": "{where} denied access to s3://{bucket} with the credentials in the environment",
    "NETWORK_CONNECTION": "cannot reach the object store at {where}",
    "MISSING_AUTHENTICATION_TOKEN": "no credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY",
}


def is_url(value: str | None) -> bool:
    return bool(value) and value.startswith("s3://")


@dataclass(frozen=True)
class Location:
    bucket: str
    prefix: str
    endpoint: str | None = None  # None: AWS itself
    region: str = DEFAULT_REGION

    @property
    def url(self) -> str:
        return f"s3://{self.bucket}/{self.prefix}".rstrip("/")

    @property
    def where(self) -> str:
        return self.endpoint or "AWS S3"

    @property
    def key(self) -> str:
        """The location as pyarrow names it: BUCKET/PREFIX."""
        return f"{self.bucket}/{self.prefix}".rstrip("/")

    def child(self, name: str) -> "Location":
        return Location(self.bucket, f"{self.prefix}/{name}".strip("/"), self.endpoint, self.region)


def parse(url: str, endpoint: str | None = None) -> Location:
    """``s3://BUCKET/PREFIX`` and an endpoint (flag or setting, else $AWS_ENDPOINT_URL_S3 / $AWS_ENDPOINT_URL)."""
    parts = urlparse(url or "")
    if parts.scheme != "s3" or not re.fullmatch(r"[a-z0-9][a-z0-9.\-]{1,61}[a-z0-9]", parts.netloc or ""):
        raise InvalidInput(f"not an object-store URL: {url!r} (expected s3://BUCKET/PREFIX)")
    if parts.query or parts.fragment or "@" in url:
        raise InvalidInput("give the endpoint with --endpoint and credentials in the environment, not in the URL")
    endpoint = endpoint or os.environ.get("AWS_ENDPOINT_URL_S3") or os.environ.get("AWS_ENDPOINT_URL") or None
    if endpoint and urlparse(endpoint).scheme not in ("http", "https"):
        raise InvalidInput(f"not an endpoint URL: {endpoint!r} (expected http://HOST:PORT or https://HOST)")
    region = os.environ.get("AWS_REGION") or os.environ.get("AWS_DEFAULT_REGION") or DEFAULT_REGION
    return Location(parts.netloc, parts.path.strip("/"), endpoint.rstrip("/") if endpoint else None, region)


def _secrets() -> list[str]:
    return [v for v in (os.environ.get(k) for k in ("AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN")) if v]


def explain(error: Exception, location: Location) -> str:
    """One line naming the problem; the store's own words only, so no credential can leak into it."""
    text = str(error)
    for code, message in _PROBLEMS.items():
        if code in text:
            return message.format(bucket=location.bucket, where=location.where)
    code = re.search(r"AWS Error ([A-Z_]+)", text)
    detail = f"AWS error {code.group(1)}" if code else type(error).__name__
    for secret in _secrets():
        detail = detail.replace(secret, "***")
    return f"the object store at {location.where} failed: {detail}"


def filesystem(location: Location):
    """A pyarrow S3 filesystem for the location, with short timeouts and one attempt per request."""
    from pyarrow import fs

    options = {"region": location.region, "connect_timeout": CONNECT_TIMEOUT_S, "request_timeout": REQUEST_TIMEOUT_S,
               "retry_strategy": fs.AwsStandardS3RetryStrategy(max_attempts=1)}
    if location.endpoint:
        options |= {"endpoint_override": location.endpoint, "scheme": urlparse(location.endpoint).scheme}
    if os.environ.get("AWS_ACCESS_KEY_ID"):
        options |= {"access_key": os.environ["AWS_ACCESS_KEY_ID"],
                    "secret_key": os.environ.get("AWS_SECRET_ACCESS_KEY", ""),
                    "session_token": os.environ.get("AWS_SESSION_TOKEN")}
    return fs.S3FileSystem(**options)


def objects(location: Location) -> dict[str, int]:
    """Every object under the location (key -> size); raises ConfigError naming the problem."""
    from pyarrow import fs

    selector = fs.FileSelector(location.key, recursive=True, allow_not_found=True)
    try:
        store = filesystem(location)
        found = store.get_file_info(selector)  # a listing's error says why (a bucket's HEAD cannot)
        if not found and store.get_file_info(location.bucket).type == fs.FileType.NotFound:
            raise ConfigError(_PROBLEMS["NO_SUCH_BUCKET"].format(bucket=location.bucket, where=location.where))
    except OSError as error:
        raise ConfigError(explain(error, location)) from None
    return {info.path: info.size for info in found if info.type == fs.FileType.File}


def probe(location: Location) -> None:
    """Reach the endpoint, be accepted and find the bucket, or raise ConfigError saying which failed."""
    objects(location)


def read(location: Location, key: str | None = None) -> bytes | None:
    """One object's bytes (the location's own, or ``key`` as ``objects`` lists it); None when there is none."""
    from pyarrow import fs

    try:
        store = filesystem(location)
        if store.get_file_info(key or location.key).type == fs.FileType.NotFound:
            return None
        with store.open_input_stream(key or location.key) as stream:
            return stream.read()
    except OSError as error:
        raise ConfigError(explain(error, location)) from None


def write(location: Location, data: bytes) -> None:
    """Put one object (a PUT replaces it whole: readers see the old bytes or the new, never half)."""
    try:
        with filesystem(location).open_output_stream(location.key) as stream:
            stream.write(data)
    except OSError as error:
        raise ConfigError(explain(error, location)) from None


def delete(location: Location) -> None:
    from pyarrow import fs

    try:
        store = filesystem(location)
        if store.get_file_info(location.key).type != fs.FileType.NotFound:
            store.delete_file(location.key)
    except OSError as error:
        raise ConfigError(explain(error, location)) from None


def storage_options(location: Location) -> dict[str, str]:
    """LanceDB's ``storage_options`` for the location (keys from the environment)."""
    options = {"region": location.region}
    if location.endpoint:
        options |= {"endpoint": location.endpoint, "allow_http": str(location.endpoint.startswith("http:")).lower()}
    for name, variable in (("aws_access_key_id", "AWS_ACCESS_KEY_ID"), ("aws_secret_access_key",
                                                                        "AWS_SECRET_ACCESS_KEY"),
                           ("aws_session_token", "AWS_SESSION_TOKEN")):
        if os.environ.get(variable):
            options[name] = os.environ[variable]
    return options
