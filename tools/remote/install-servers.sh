#!/usr/bin/env bash
# Installs the servers that binfmt-remote's tests start on 127.0.0.1:
#   * nginx (Debian's nginx-light), run by the tests with their own config and prefix;
#   * moto's standalone S3 server, into tools/.venv (tools/remote/requirements.txt).
# Idempotent: safe to run again. Needs root for apt-get (CI runs as root).
#
# The Debian package would start nginx as a system service listening on port 80 of every
# interface. It must not: the install runs with a policy-rc.d that forbids starting
# services, and afterwards any system nginx is stopped and disabled. The tests start their
# own nginx on 127.0.0.1 only and stop it when they finish.
#
# Afterwards, export (the paths are printed at the end):
#   BINFMT_NGINX=/usr/sbin/nginx
#   BINFMT_MOTO_SERVER=$PWD/tools/.venv/bin/moto_server
#   BINFMT_REQUIRE_SERVERS=1   # a test that cannot find a server now fails instead of skipping
set -euo pipefail
cd "$(dirname "$0")/../.."

# --- nginx ------------------------------------------------------------------------------
if ! command -v nginx >/dev/null 2>&1 && [ ! -x /usr/sbin/nginx ]; then
  export DEBIAN_FRONTEND=noninteractive
  policy=/usr/sbin/policy-rc.d
  ours=0
  if [ ! -e "$policy" ]; then
    printf '#!/bin/sh\n# binfmt install-servers.sh: no service may start during the install\nexit 101\n' >"$policy"
    chmod 755 "$policy"
    ours=1
  fi
  trap '[ "$ours" = 1 ] && rm -f "$policy"' EXIT
  apt-get update -q
  # nginx-light is the smallest build with the static, range and log modules we use.
  apt-get install -y -q --no-install-recommends nginx-light || apt-get install -y -q --no-install-recommends nginx
  if [ "$ours" = 1 ]; then rm -f "$policy"; fi
  trap - EXIT
fi
# Whatever happened before (an older install, another script): no system nginx stays up.
if command -v systemctl >/dev/null 2>&1 && systemctl is-system-running >/dev/null 2>&1; then
  systemctl disable --now nginx >/dev/null 2>&1 || true
fi
if [ -x /etc/init.d/nginx ]; then
  /etc/init.d/nginx stop >/dev/null 2>&1 || true
fi
if command -v update-rc.d >/dev/null 2>&1; then
  update-rc.d nginx disable >/dev/null 2>&1 || true
fi
if [ -s /run/nginx.pid ] && kill -0 "$(cat /run/nginx.pid)" 2>/dev/null; then
  kill -QUIT "$(cat /run/nginx.pid)" || true
fi
nginx_bin=$(command -v nginx || echo /usr/sbin/nginx)

# --- moto (S3-compatible server) --------------------------------------------------------
if [ ! -x tools/.venv/bin/python ]; then
  python3 -m venv tools/.venv
fi
if ! tools/.venv/bin/python -c 'import moto.server, flask' >/dev/null 2>&1 \
  || [ "$(tools/.venv/bin/python -c 'import moto; print(moto.__version__)')" != 5.2.5 ]; then
  tools/.venv/bin/pip install --quiet --retries 5 -r tools/remote/requirements.txt
fi

# Nothing of ours may listen beyond loopback (the tests start their own servers on
# 127.0.0.1 and stop them).
if command -v ss >/dev/null 2>&1; then
  exposed=$(ss -ltnpH 2>/dev/null | awk '/"(nginx|moto_server)"/ && $4 !~ /^(127\.|\[::1\]:)/' || true)
  if [ -n "$exposed" ]; then
    echo "install-servers.sh: nginx or moto is listening beyond 127.0.0.1:" >&2
    echo "$exposed" >&2
    exit 1
  fi
fi

# --- report ------------------------------------------------------------------------------
"$nginx_bin" -v 2>&1
echo "moto $(tools/.venv/bin/python -c 'import moto; print(moto.__version__)')"
echo "BINFMT_NGINX=$nginx_bin"
echo "BINFMT_MOTO_SERVER=$PWD/tools/.venv/bin/moto_server"
