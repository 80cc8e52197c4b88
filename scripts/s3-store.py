#!/usr/bin/python3
"""A real S3-compatible object store on loopback, for tests and benchmarks.

OpenStack Swift with its s3api middleware (Debian: python3-swift, memcached),
all in one directory: one replica, one device, the proxy, account, container
and object servers and memcached, each on 127.0.0.1 and a free port.

    scripts/s3-store.py start DIR [BUCKET...]   start (or restart) the store kept in DIR
    scripts/s3-store.py stop DIR                stop it; DIR keeps its objects
    scripts/s3-store.py bucket DIR BUCKET...    create buckets in the running store
    scripts/s3-store.py check                   exit 0 if the store can run here

`start` prints shell assignments (also kept in DIR/store.env) for the AWS
conventions: AWS_ENDPOINT_URL, AWS_REGION, AWS_ACCESS_KEY_ID (tempauth's
"account:user", colon included), AWS_SECRET_ACCESS_KEY. A restart of the same
DIR reuses its ports, so a client that had the endpoint finds it again.

Swift reads swift.conf from /etc/swift unless told otherwise, so every server is
started through this file's `serve` command, which points Swift at DIR first.
The servers call setsid(), so they are stopped by the PIDs kept in DIR/pids.
"""
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request

ACCESS_KEY = "test:tester"
SECRET_KEY = "testing"
REGION = "us-east-1"
SERVERS = ("account", "container", "object")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def ports_for(directory):
    path = os.path.join(directory, "ports.json")
    if os.path.exists(path):
        with open(path) as f:
            return json.load(f)
    ports = {name: free_port() for name in ("proxy", "memcached", "log") + SERVERS}
    with open(path, "w") as f:
        json.dump(ports, f)
    return ports


def write_configuration(directory, ports):
    devices = os.path.join(directory, "devices")
    os.makedirs(os.path.join(devices, "d0"), exist_ok=True)
    with open(os.path.join(directory, "swift.conf"), "w") as f:
        f.write("[swift-hash]\nswift_hash_path_suffix = thumbnailer\nswift_hash_path_prefix = tests\n"
                "[storage-policy:0]\nname = gold\ndefault = yes\n")
    # Logs go to a UDP port nobody reads: Swift would otherwise look for syslog.
    common = (f"[DEFAULT]\nbind_ip = 127.0.0.1\nworkers = 0\nswift_dir = {directory}\n"
              f"devices = {devices}\nmount_check = false\nlog_udp_host = 127.0.0.1\n"
              f"log_udp_port = {ports['log']}\n")
    for server in SERVERS:
        with open(os.path.join(directory, f"{server}-server.conf"), "w") as f:
            f.write(common + f"bind_port = {ports[server]}\n"
                    f"[pipeline:main]\npipeline = {server}-server\n"
                    f"[app:{server}-server]\nuse = egg:swift#{server}\n")
    with open(os.path.join(directory, "proxy-server.conf"), "w") as f:
        f.write(common + f"bind_port = {ports['proxy']}\n"
                "[pipeline:main]\npipeline = catch_errors gatekeeper healthcheck proxy-logging cache "
                "listing_formats s3api tempauth copy proxy-logging proxy-server\n"
                "[filter:catch_errors]\nuse = egg:swift#catch_errors\n"
                "[filter:gatekeeper]\nuse = egg:swift#gatekeeper\n"
                "[filter:healthcheck]\nuse = egg:swift#healthcheck\n"
                "[filter:proxy-logging]\nuse = egg:swift#proxy_logging\n"
                f"[filter:cache]\nuse = egg:swift#memcache\nmemcache_servers = 127.0.0.1:{ports['memcached']}\n"
                # Swift's memcache client gives a connection 0.3 s and, after 10 errors in 60 s, leaves
                # the server alone for 60 s: on a loaded machine that made every login 503 for a minute
                # (CI, the Slurm test). One memcached on loopback is never to be given up on.
                "connect_timeout = 5\nio_timeout = 10\nerror_suppression_limit = 1000000\n"
                "[filter:listing_formats]\nuse = egg:swift#listing_formats\n"
                f"[filter:s3api]\nuse = egg:swift#s3api\nlocation = {REGION}\n"
                f"[filter:tempauth]\nuse = egg:swift#tempauth\nuser_test_tester = {SECRET_KEY} .admin\n"
                "[filter:copy]\nuse = egg:swift#copy\n"
                "[app:proxy-server]\nuse = egg:swift#proxy\naccount_autocreate = true\n")


def build_rings(directory, ports):
    from swift.common.ring import RingBuilder
    for server in SERVERS:
        path = os.path.join(directory, f"{server}.ring.gz")
        if os.path.exists(path):
            continue
        builder = RingBuilder(6, 1, 1)
        builder.add_dev({"id": 0, "region": 1, "zone": 1, "ip": "127.0.0.1", "port": ports[server],
                         "device": "d0", "weight": 100})
        builder.rebalance()
        builder.get_ring().save(path)


def wait_until_ready(ports, processes, seconds=120):
    deadline = time.monotonic() + seconds
    url = f"http://127.0.0.1:{ports['proxy']}/healthcheck"
    while time.monotonic() < deadline:
        for name, process in processes.items():
            if process.poll() is not None:
                raise SystemExit(f"s3-store: {name} exited with {process.returncode}")
        try:
            with urllib.request.urlopen(url, timeout=1) as response:
                # tempauth keeps its tokens in memcached and answers a login 503 without it.
                if response.status == 200 and all(can_connect(ports[s]) for s in SERVERS + ("memcached",)):
                    return
        except OSError:
            pass
        time.sleep(0.1)
    raise SystemExit("s3-store: not ready after %d s (see servers.log)" % seconds)


def can_connect(port):
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
        return True
    except OSError:
        return False


def environment(ports):
    return {"AWS_ENDPOINT_URL": f"http://127.0.0.1:{ports['proxy']}", "AWS_REGION": REGION,
            "AWS_ACCESS_KEY_ID": ACCESS_KEY, "AWS_SECRET_ACCESS_KEY": SECRET_KEY}


def start(directory, buckets):
    directory = os.path.abspath(directory)
    os.makedirs(directory, exist_ok=True)
    stop(directory)
    ports = ports_for(directory)
    write_configuration(directory, ports)
    build_rings(directory, ports)
    logs = open(os.path.join(directory, "servers.log"), "ab")
    processes = {"memcached": subprocess.Popen(
        ["memcached", "-l", "127.0.0.1", "-p", str(ports["memcached"]), "-U", "0", "-m", "64"]
        + (["-u", "root"] if os.geteuid() == 0 else []),
        stdout=logs, stderr=logs, start_new_session=True)}
    for server in SERVERS + ("proxy",):
        processes[server] = subprocess.Popen(
            [sys.executable, os.path.abspath(__file__), "serve", directory, server],
            stdout=logs, stderr=logs, start_new_session=True)
    with open(os.path.join(directory, "pids"), "w") as f:
        f.write("".join(f"{p.pid}\n" for p in processes.values()))
    try:
        wait_until_ready(ports, processes)
    except SystemExit:
        stop(directory)
        raise
    env = environment(ports)
    for bucket in buckets:
        create_bucket(env, bucket)
    text = "".join(f"{key}={value}\n" for key, value in env.items())
    with open(os.path.join(directory, "store.env"), "w") as f:
        f.write(text)
    sys.stdout.write(text)


def create_bucket(env, bucket):
    """Creates a bucket as the Swift container it is, through tempauth's own API (a signed S3
    PUT Bucket would need an SDK: curl cannot carry the colon in tempauth's access key)."""
    endpoint = env["AWS_ENDPOINT_URL"]
    login = urllib.request.Request(f"{endpoint}/auth/v1.0", headers={
        "X-Auth-User": env["AWS_ACCESS_KEY_ID"], "X-Auth-Key": env["AWS_SECRET_ACCESS_KEY"]})
    token, storage = logged_in(login)
    create = urllib.request.Request(f"{storage}/{bucket}", method="PUT", headers={"X-Auth-Token": token})
    with urllib.request.urlopen(create, timeout=10) as response:
        if response.status not in (201, 202):
            raise SystemExit(f"s3-store: PUT bucket {bucket} answered {response.status}")


def logged_in(login, seconds=30):
    """The token and storage URL of a tempauth login, asked again while the proxy answers 503
    (its memcached connection can lag its own readiness on a loaded machine)."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            with urllib.request.urlopen(login, timeout=10) as response:
                return response.headers["X-Auth-Token"], response.headers["X-Storage-Url"]
        except urllib.error.HTTPError as error:
            if error.code != 503 or time.monotonic() > deadline:
                raise
        time.sleep(0.2)


def stop(directory):
    path = os.path.join(directory, "pids")
    if not os.path.exists(path):
        return
    with open(path) as f:
        pids = [int(line) for line in f if line.strip()]
    for pid in pids:
        try:
            os.killpg(pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
    # Swift's servers finish the requests of open connections after SIGTERM: a
    # second is enough for an idle store, and a busy one is stopped for real.
    deadline = time.monotonic() + 1
    for pid in pids:
        while time.monotonic() < deadline and alive(pid):
            time.sleep(0.05)
        if alive(pid):
            try:
                os.killpg(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
    os.remove(path)


def alive(pid):
    try:
        os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        pass
    try:
        os.kill(pid, 0)
        return True
    except ProcessLookupError:
        return False


def serve(directory, server):
    from swift.common import utils
    utils.set_swift_dir(directory)
    from swift.common.wsgi import run_wsgi
    sys.exit(run_wsgi(os.path.join(directory, f"{server}-server.conf"), f"{server}-server"))


def check():
    try:
        import swift  # noqa: F401
    except ImportError:
        raise SystemExit("s3-store: python3-swift is not installed (scripts/setup.sh installs it on Debian and Ubuntu)")
    if subprocess.run(["which", "memcached"], capture_output=True).returncode != 0:
        raise SystemExit("s3-store: memcached is not installed")


def main(arguments):
    if arguments[:1] == ["check"]:
        check()
    elif len(arguments) >= 2 and arguments[0] == "start":
        check()
        start(arguments[1], arguments[2:])
    elif len(arguments) >= 3 and arguments[0] == "bucket":
        with open(os.path.join(arguments[1], "store.env")) as f:
            env = dict(line.rstrip("\n").split("=", 1) for line in f if "=" in line)
        for bucket in arguments[2:]:
            create_bucket(env, bucket)
    elif len(arguments) == 2 and arguments[0] == "stop":
        stop(os.path.abspath(arguments[1]))
    elif len(arguments) == 3 and arguments[0] == "serve":
        serve(arguments[1], arguments[2])
    else:
        raise SystemExit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
