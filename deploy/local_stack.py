"""The production stack on loopback, for a person to try and for the deployment test: a throw-away PostgreSQL
cluster, app "hosts" on their own loopback addresses (127.0.0.2, 127.0.0.3, ...), each `interconnects serve
--workers N` on one port, and Debian's nginx in front (TLS with a self-signed certificate, its cache in the stack's
directory). Nothing is written outside that directory; nothing needs root except what PostgreSQL insists on (as
root, the cluster runs as the `postgres` user and nginx's workers as `nobody`).

    deploy/local-stack up [--dir DIR] [--port 8443] [--hosts 2] [--workers 2]   # the site's URL is the last line
    deploy/local-stack down [--dir DIR]
    deploy/local-stack nginx-conf --server 10.0.0.2:8000 --server 10.0.0.3:8000 ...   # the production site file
    deploy/local-stack collect-static DIR                                              # static files for nginx

Every process is started in a session of its own and its id written to DIR/stack.json; `down` stops those ids
(the process groups they lead) and nothing else.
"""

from __future__ import annotations

import argparse
import contextlib
import gzip
import json
import os
import re
import secrets
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parent.parent
DEPLOY_DIR = PROJECT_ROOT / "deploy"
DEFAULT_DIR = PROJECT_ROOT / "var" / "local-stack"
NGINX_ADDRESS = "127.0.0.1"  # where nginx listens, and the address it connects to the app hosts from
APP_PORT = 8000
# uvicorn closes an idle connection after this long; nginx must give up its idle upstream connections sooner
# (keepalive_timeout in interconnects.conf), or it sends a request down a connection uvicorn is closing, gets an
# error, and counts it against a healthy host: with max_fails, two such races mark every host down at once.
APP_KEEPALIVE_S = 75
FAIL_TIMEOUT_S = 2  # nginx takes a host out this long after max_fails failed connections (interconnects.conf)
START_TIMEOUT_S = 240  # each worker loads and renders the whole course; on a busy 2-core machine that takes a while
STOP_TIMEOUT_S = 20
COMPRESSED_SUFFIXES = (".css", ".js", ".svg", ".json", ".html", ".txt", ".map")


# The app hosts this process started, so that stopping one also waits for it (a child left unwaited is a zombie,
# and Python warns about a Popen dropped while its process runs).
_children: dict[int, subprocess.Popen[bytes]] = {}


class StackError(RuntimeError):
    """The stack could not be started or stopped; the message says what and where its log is."""


# --- configuration files -------------------------------------------------------------------------------------


def nginx_site(
    servers: Sequence[str],
    *,
    cache_dir: Path,
    static_root: Path,
    certificate: Path,
    key: Path,
    https_listen: str = "443",
    http_listen: str = "80",
    server_name: str = "_",
    access_log: str = "/var/log/nginx/interconnects.access.log",
    proxy_snippet: Path = DEPLOY_DIR / "nginx" / "interconnects-proxy.conf",
    max_fails: int = 3,
    fail_timeout_s: int = FAIL_TIMEOUT_S,
) -> str:
    """deploy/nginx/interconnects.conf with its @NAME@ markers filled in."""
    https_port = https_listen.rpartition(":")[2]
    values = {
        "UPSTREAM_SERVERS": "\n".join(
            [f"    server {server} max_fails={max_fails} fail_timeout={fail_timeout_s}s;" for server in servers]
            + [f"    server {server} backup max_fails=0;" for server in servers]
        ),
        "CACHE_DIR": str(cache_dir),
        "STATIC_ROOT": str(static_root),
        "TLS_CERTIFICATE": str(certificate),
        "TLS_KEY": str(key),
        "HTTPS_LISTEN": https_listen,
        "HTTP_LISTEN": http_listen,
        "HTTPS_PORT_SUFFIX": "" if https_port == "443" else f":{https_port}",
        "SERVER_NAME": server_name,
        "ACCESS_LOG": access_log,
        "PROXY_SNIPPET": str(proxy_snippet),
    }
    text = (DEPLOY_DIR / "nginx" / "interconnects.conf").read_text()
    for name, value in values.items():
        text = text.replace(f"@{name}@", value)
    code = "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("#"))
    leftover = re.findall(r"@[A-Z_]+@", code)
    if leftover:
        raise StackError(f"unfilled markers in the nginx site: {leftover}")
    return text


def collect_static(source: Path, target: Path) -> int:
    """Write every static file as target/static/<digest>/<path> (the URL the app links, under nginx's `root`) with
    a .gz beside each text file, for gzip_static; earlier digests already in target stay. Returns the file count."""
    sys.path.insert(0, str(PROJECT_ROOT))
    from app.web.templating.static import StaticAssets  # the app's own digests, not re-derived

    assets = StaticAssets(source)
    for path, digest in assets.digests.items():
        destination = target / "static" / digest / path
        destination.parent.mkdir(parents=True, exist_ok=True)
        body = (source / path).read_bytes()
        destination.write_bytes(body)
        if destination.suffix in COMPRESSED_SUFFIXES:
            destination.with_name(destination.name + ".gz").write_bytes(gzip.compress(body, 9, mtime=0))
    return len(assets.digests)


def app_command(address: str, port: int, workers: int, python: str = "python") -> list[str]:
    """One app host: uvicorn's supervisor with `workers` processes on one socket (what systemd runs, too).

    This is `interconnects serve` minus its up-front check, plus a longer worker health check: uvicorn kills a
    worker that does not answer its parent's ping within 5 s, and a worker still importing and rendering the
    course on a busy 2-core machine took longer than that, so every worker was killed and restarted in a loop.
    Proxy headers are trusted from FORWARDED_ALLOW_IPS only (uvicorn reads it from the environment)."""
    return [
        python, "-m", "uvicorn", "app.main:app",
        "--host", address, "--port", str(port), "--workers", str(workers),
        "--proxy-headers", "--timeout-worker-healthcheck", "60", "--timeout-graceful-shutdown", "10",
        "--timeout-keep-alive", str(APP_KEEPALIVE_S),
        "--no-server-header",
    ]  # fmt: skip


# --- processes -----------------------------------------------------------------------------------------------


@dataclass
class Host:
    name: str
    address: str
    port: int
    var_dir: str
    log: str
    pid: int = 0

    @property
    def server(self) -> str:
        return f"{self.address}:{self.port}"


@dataclass
class Stack:
    directory: str
    url: str
    database_url: str
    admin_database_url: str
    env_file: str
    postgres_data: str
    postgres_port: int
    postgres_as_user: list[str]
    pg_bin: str
    nginx_conf: str
    nginx_pid_file: str
    nginx_access_log: str
    workers: int
    hosts: list[Host] = field(default_factory=list)

    @classmethod
    def load(cls, directory: Path) -> Stack:
        state = json.loads((directory / "stack.json").read_text())
        hosts = [Host(**host) for host in state.pop("hosts")]
        return cls(**state, hosts=hosts)

    def save(self) -> None:
        (Path(self.directory) / "stack.json").write_text(json.dumps(asdict(self), indent=2))

    def environment(self) -> dict[str, str]:
        values: dict[str, str] = {}
        for line in Path(self.env_file).read_text().splitlines():
            if line.strip() and not line.startswith("#"):
                name, _, value = line.partition("=")
                values[name] = value
        return values

    # PostgreSQL

    def pg_ctl(self, *arguments: str) -> subprocess.CompletedProcess[bytes]:
        return subprocess.run(
            [*self.postgres_as_user, str(Path(self.pg_bin) / "pg_ctl"), "-D", self.postgres_data, *arguments],
            capture_output=True,
            check=False,
        )

    def start_postgres(self) -> None:
        log = str(Path(self.postgres_data).parent / "postgres.log")
        options = (
            f"-c listen_addresses={NGINX_ADDRESS} -p {self.postgres_port} -k {Path(self.postgres_data).parent} "
            "-c fsync=off -c full_page_writes=off -c max_connections=200"
        )
        done = self.pg_ctl("-o", options, "-l", log, "-w", "-t", "120", "start")
        if done.returncode:
            raise StackError(f"PostgreSQL did not start ({done.stderr.decode()}); see {log}")

    def stop_postgres(self, mode: str = "fast") -> None:
        self.pg_ctl("-m", mode, "-w", "stop")

    # app hosts

    def start_host(self, host: Host) -> None:
        env = os.environ | self.environment() | {"VAR_DIR": host.var_dir, "PYTHONUNBUFFERED": "1"}
        with Path(host.log).open("ab") as log:
            process = subprocess.Popen(
                app_command(host.address, host.port, self.workers, python=sys.executable),
                cwd=PROJECT_ROOT,
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        _children[process.pid] = process
        host.pid = process.pid
        self.save()

    def wait_for_host(self, host: Host) -> None:
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            if healthy(f"http://{host.server}/healthz", self.url):
                return
            if not _alive(host.pid):
                raise StackError(f"app host {host.name} exited; see {host.log}:\n{_tail(Path(host.log))}")
            time.sleep(0.25)
        raise StackError(
            f"app host {host.name} did not answer /healthz in {START_TIMEOUT_S} s:\n{_tail(Path(host.log))}"
        )

    def stop_host(self, host: Host) -> None:
        _stop_group(host.pid)
        host.pid = 0
        self.save()

    def worker_pids(self, host: Host) -> list[int]:
        """The uvicorn worker processes of a host (children of its `serve` process)."""
        children = Path(f"/proc/{host.pid}/task/{host.pid}/children")
        found = [int(pid) for pid in children.read_text().split()] if children.exists() else []
        return [pid for pid in found if _is_worker(pid)]

    # nginx

    def nginx(self, *arguments: str) -> subprocess.CompletedProcess[bytes]:
        prefix = str(Path(self.nginx_conf).parent)
        return subprocess.run(
            ["nginx", "-p", prefix, "-c", self.nginx_conf, *arguments], capture_output=True, check=False
        )

    def nginx_pid(self) -> int:
        path = Path(self.nginx_pid_file)
        return int(path.read_text().strip()) if path.exists() else 0

    def log_tails(self, lines: int = 40) -> str:
        """The last lines of nginx's error log and of each host's log, for a failing test to show what happened."""
        logs = [Path(self.nginx_conf).parent / "logs" / "error.log", *(Path(host.log) for host in self.hosts)]
        parts = []
        for log in logs:
            text = log.read_text(errors="replace").splitlines()[-lines:] if log.exists() else ["(no log)"]
            parts.append(f"--- {log}\n" + "\n".join(text))
        return "\n".join(parts)


def _is_worker(pid: int) -> bool:
    try:
        command = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False
    return b"spawn_main" in command  # not multiprocessing's resource tracker, its other child


def _alive(pid: int) -> bool:
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    status = Path(f"/proc/{pid}/stat")
    return not (status.exists() and status.read_text().split(") ", 1)[-1].startswith("Z"))


def _stop_group(pid: int) -> None:
    """SIGTERM the process group `pid` leads (started with start_new_session), then SIGKILL what remains."""
    if pid <= 0:
        return
    try:
        os.killpg(pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    deadline = time.monotonic() + STOP_TIMEOUT_S
    while time.monotonic() < deadline:
        try:
            os.killpg(pid, 0)
        except ProcessLookupError:
            break
        _reap(pid)
        time.sleep(0.1)
    else:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(pid, signal.SIGKILL)
    _reap(pid)


def _reap(pid: int) -> None:
    child = _children.get(pid)
    if child is not None:
        if child.poll() is not None:
            del _children[pid]
        return
    with contextlib.suppress(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)


def _tail(path: Path, lines: int = 30) -> str:
    return "\n".join(path.read_text(errors="replace").splitlines()[-lines:]) if path.exists() else ""


def healthy(url: str, base_url: str) -> bool:
    """Whether GET url answers 200, sent with the Host the app serves (it answers 400 to any other)."""
    host = base_url.split("://", 1)[1]
    request = urllib.request.Request(url, headers={"Host": host})  # noqa: S310  (a loopback URL we built)
    try:
        with urllib.request.urlopen(request, timeout=2) as response:  # noqa: S310
            return bool(response.status == 200)
    except (urllib.error.URLError, OSError):
        return False


def _free_port(address: str) -> int:
    with socket.socket() as probe:
        probe.bind((address, 0))
        return int(probe.getsockname()[1])


def _postgres_bin() -> Path:
    found = shutil.which("pg_ctl")
    if found:
        return Path(found).resolve().parent
    candidates = sorted(Path("/usr/lib/postgresql").glob("*/bin/pg_ctl"), reverse=True)
    if not candidates:
        raise StackError("PostgreSQL is not installed (Debian: apt-get install postgresql)")
    return candidates[0].parent


def _run(command: Sequence[str], env: Mapping[str, str] | None = None, what: str = "") -> str:
    done = subprocess.run(list(command), capture_output=True, text=True, check=False, env=env, cwd=PROJECT_ROOT)
    if done.returncode:
        raise StackError(f"{what or command[0]} failed: {done.stderr.strip() or done.stdout.strip()}")
    return done.stdout


# --- up / down -----------------------------------------------------------------------------------------------


def up(
    directory: Path = DEFAULT_DIR,
    *,
    https_port: int = 8443,
    hosts: int = 2,
    workers: int = 2,
    extra_env: Mapping[str, str] | None = None,
) -> Stack:
    """Start the stack in `directory` (which must not hold a running one) and return it."""
    if (directory / "stack.json").exists():
        raise StackError(f"{directory} already holds a stack; run `deploy/local-stack down --dir {directory}` first")
    directory.mkdir(parents=True, exist_ok=True)
    directory.chmod(0o755)  # the postgres and nobody users of a root run must reach their files inside
    as_root = os.geteuid() == 0
    pg_bin = _postgres_bin()
    pg_dir = directory / "postgres"
    pg_dir.mkdir()
    as_user: list[str] = []
    if as_root:  # PostgreSQL refuses to run as root
        as_user = ["runuser", "-u", "postgres", "--"]
        shutil.chown(pg_dir, "postgres")
    _run(
        [*as_user, str(pg_bin / "initdb"), "-D", str(pg_dir / "data"), "-U", "postgres", "--auth=trust", "-E", "UTF8"],
        what="initdb",
    )
    pg_port = _free_port(NGINX_ADDRESS)
    https_port = https_port or _free_port(NGINX_ADDRESS)
    url = f"https://{NGINX_ADDRESS}:{https_port}"
    admin_url = f"postgresql+psycopg://postgres@{NGINX_ADDRESS}:{pg_port}/postgres"
    database_url = f"postgresql+psycopg://postgres@{NGINX_ADDRESS}:{pg_port}/interconnects"

    secrets_dir = directory / "secrets"
    secrets_dir.mkdir(mode=0o700)
    key_file = secrets_dir / "certificate-keys.pem"
    _run(["openssl", "genpkey", "-algorithm", "ed25519", "-out", str(key_file)], what="openssl genpkey")
    tls_dir = directory / "tls"
    tls_dir.mkdir()
    _run(
        [
            "openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
            "-days", "30", "-subj", f"/CN={NGINX_ADDRESS}", "-addext", f"subjectAltName=IP:{NGINX_ADDRESS}",
            "-keyout", str(tls_dir / "key.pem"), "-out", str(tls_dir / "cert.pem"),
        ],
        what="openssl req",
    )  # fmt: skip
    env_file = directory / "interconnects.env"
    settings = {
        "ENV": "production",
        "DATABASE_URL": database_url,
        "BASE_URL": url,
        "SECRET_KEY": secrets.token_urlsafe(48),
        "CERTIFICATE_KEY_FILE": str(key_file),
        "METRICS_TOKEN": secrets.token_urlsafe(32),
        "OUTBOX_DIR": str(directory / "outbox"),
        "FORWARDED_ALLOW_IPS": NGINX_ADDRESS,
        "LOG_LEVEL": "INFO",
    } | dict(extra_env or {})
    env_file.write_text("".join(f"{name}={value}\n" for name, value in settings.items()))
    env_file.chmod(0o600)

    nginx_dir = directory / "nginx"
    for sub in ("cache", "temp", "logs"):
        (nginx_dir / sub).mkdir(parents=True)
        if as_root:
            shutil.chown(nginx_dir / sub, "nobody")
    static_root = directory / "public"
    collect_static(PROJECT_ROOT / "static", static_root)

    app_hosts = [
        Host(
            name=f"host-{chr(ord('a') + index)}",
            address=f"127.0.0.{index + 2}",
            port=APP_PORT,
            var_dir=str(directory / f"host-{chr(ord('a') + index)}"),
            log=str(directory / f"host-{chr(ord('a') + index)}.log"),
        )
        for index in range(hosts)
    ]
    for host in app_hosts:
        if not _port_is_free(host.address, host.port):
            host.port = _free_port(host.address)
        Path(host.var_dir).mkdir()

    stack = Stack(
        directory=str(directory),
        url=url,
        database_url=database_url,
        admin_database_url=admin_url,
        env_file=str(env_file),
        postgres_data=str(pg_dir / "data"),
        postgres_port=pg_port,
        postgres_as_user=as_user,
        pg_bin=str(pg_bin),
        nginx_conf=str(nginx_dir / "nginx.conf"),
        nginx_pid_file=str(nginx_dir / "nginx.pid"),
        nginx_access_log=str(nginx_dir / "logs" / "access.log"),
        workers=workers,
        hosts=app_hosts,
    )
    stack.save()
    try:
        stack.start_postgres()
        _run(
            [*as_user, str(pg_bin / "createdb"), "-h", NGINX_ADDRESS, "-p", str(pg_port), "-U", "postgres",
             "interconnects"],
            what="createdb",
        )  # fmt: skip
        # Migrations first, by the release about to run; the app refuses to start on a schema behind head.
        _run(
            [sys.executable, "-m", "app.cli", "db", "upgrade"],
            env=os.environ | settings | {"VAR_DIR": str(directory)},
            what="interconnects db upgrade",
        )
        for host in app_hosts:
            stack.start_host(host)
        for host in app_hosts:
            stack.wait_for_host(host)
        site = nginx_site(
            [host.server for host in app_hosts],
            cache_dir=nginx_dir / "cache",
            static_root=static_root,
            certificate=tls_dir / "cert.pem",
            key=tls_dir / "key.pem",
            https_listen=f"{NGINX_ADDRESS}:{https_port}",
            http_listen=f"{NGINX_ADDRESS}:{_free_port(NGINX_ADDRESS)}",
            server_name=NGINX_ADDRESS,
            access_log=stack.nginx_access_log,
        )
        (nginx_dir / "interconnects.conf").write_text(site)
        Path(stack.nginx_conf).write_text(_nginx_main(nginx_dir, as_root))
        started = stack.nginx()
        if started.returncode:
            raise StackError(f"nginx did not start: {started.stderr.decode()}")
        if not _wait(lambda: healthy_tls(f"{url}/healthz"), 30):
            raise StackError(f"nginx does not answer at {url}; see {nginx_dir / 'logs' / 'error.log'}")
    except BaseException:
        down(directory)
        raise
    return stack


def _port_is_free(address: str, port: int) -> bool:
    with socket.socket() as probe:
        try:
            probe.bind((address, port))
        except OSError:
            return False
    return True


def _wait(condition: object, timeout_s: float) -> bool:
    assert callable(condition)
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.1)
    return False


def healthy_tls(url: str) -> bool:
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE  # the stack's own self-signed certificate
    try:
        with urllib.request.urlopen(url, timeout=2, context=context) as response:  # noqa: S310
            return bool(response.status == 200)
    except (urllib.error.URLError, OSError):
        return False


def _nginx_main(nginx_dir: Path, as_root: bool) -> str:
    user = "user nobody nogroup;\n" if as_root else ""
    return f"""# The local stack's nginx: Debian's binary, everything else in this directory.
{user}worker_processes 1;
daemon on;
pid {nginx_dir / "nginx.pid"};
error_log {nginx_dir / "logs" / "error.log"} warn;
events {{ worker_connections 1024; }}
http {{
    include /etc/nginx/mime.types;
    default_type application/octet-stream;
    sendfile on;
    keepalive_timeout 65;
    client_body_temp_path {nginx_dir / "temp" / "body"};
    proxy_temp_path {nginx_dir / "temp" / "proxy"};
    fastcgi_temp_path {nginx_dir / "temp" / "fastcgi"};
    uwsgi_temp_path {nginx_dir / "temp" / "uwsgi"};
    scgi_temp_path {nginx_dir / "temp" / "scgi"};
    include {nginx_dir / "interconnects.conf"};
}}
"""


def down(directory: Path = DEFAULT_DIR) -> None:
    """Stop everything the stack in `directory` started and remove the directory."""
    if not (directory / "stack.json").exists():
        shutil.rmtree(directory, ignore_errors=True)
        return
    stack = Stack.load(directory)
    pid = stack.nginx_pid()
    if pid and _alive(pid):
        stack.nginx("-s", "stop")
        _wait(lambda: not _alive(pid), STOP_TIMEOUT_S)
    for host in stack.hosts:
        _stop_group(host.pid)
    if Path(stack.postgres_data).exists():
        stack.stop_postgres("immediate")
    shutil.rmtree(directory, ignore_errors=True)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="deploy/local-stack", description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    start = commands.add_parser("up", help="start the stack; the site's URL is the last line")
    start.add_argument("--dir", type=Path, default=DEFAULT_DIR)
    start.add_argument("--port", type=int, default=8443, help="nginx's https port (0: any free one)")
    start.add_argument("--hosts", type=int, default=2)
    start.add_argument("--workers", type=int, default=2, help="uvicorn workers per host")
    stop = commands.add_parser("down", help="stop everything the stack started and remove its directory")
    stop.add_argument("--dir", type=Path, default=DEFAULT_DIR)
    conf = commands.add_parser("nginx-conf", help="print the nginx site for production")
    conf.add_argument("--server", action="append", required=True, help="an app host as address:port")
    conf.add_argument("--server-name", default="_")
    conf.add_argument("--certificate", type=Path, default=Path("/etc/ssl/interconnects/fullchain.pem"))
    conf.add_argument("--key", type=Path, default=Path("/etc/ssl/interconnects/privkey.pem"))
    conf.add_argument("--cache-dir", type=Path, default=Path("/var/cache/nginx/interconnects"))
    conf.add_argument("--static-root", type=Path, default=Path("/srv/interconnects/public"))
    conf.add_argument("--proxy-snippet", type=Path, default=Path("/etc/nginx/snippets/interconnects-proxy.conf"))
    collect = commands.add_parser("collect-static", help="write static/ as nginx serves it")
    collect.add_argument("target", type=Path)
    arguments = parser.parse_args(argv)
    try:
        if arguments.command == "up":
            stack = up(arguments.dir, https_port=arguments.port, hosts=arguments.hosts, workers=arguments.workers)
            for host in stack.hosts:
                print(f"{host.name}: http://{host.server} ({stack.workers} workers), log {host.log}")
            print(f"nginx: {stack.nginx_access_log}; stop everything: deploy/local-stack down --dir {stack.directory}")
            print(stack.url)
        elif arguments.command == "down":
            down(arguments.dir)
        elif arguments.command == "nginx-conf":
            print(
                nginx_site(
                    arguments.server,
                    cache_dir=arguments.cache_dir,
                    static_root=arguments.static_root,
                    certificate=arguments.certificate,
                    key=arguments.key,
                    server_name=arguments.server_name,
                    proxy_snippet=arguments.proxy_snippet,
                ),
                end="",
            )
        else:
            print(f"{collect_static(PROJECT_ROOT / 'static', arguments.target)} files in {arguments.target}")
    except StackError as error:
        print(f"local-stack: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
