"""A private CA and the broker's server certificate for Mosquitto's TLS listener.

Made with the `openssl` command-line tool (OpenSSL 3; no Python dependency): ECDSA P-256
keys, SHA-256 signatures, a CA certificate with basicConstraints CA:TRUE (pathlen 0) and a
server certificate for serverAuth naming every host name and IP address a client may use to
reach the broker (subjectAltName: clients check the name they connected to against it).

Validity runs from 1990-01-01 to 2049-12-31 on purpose: a controller has no trustworthy
clock (an RP2's starts in 2021 at every boot, an ESP32's in 2000, and the firmware does
not set it), while Mbed TLS on the RP2 checks the dates against it, so a certificate
dated from today would be "not yet valid" there. The dates are therefore not a security
property here; replacing the CA (and copying it to every controller) is how trust is
withdrawn.

Files, in one directory (`dialbox broker config --tls-names` uses `<out>/tls`):

- `ca.crt` (PEM) and `ca.der` (the same certificate, DER): what clients trust; `ca.der`
  goes onto each controller's flash as `ca.der`, `ca.crt` into the daemon's
  `[mqtt] tls_ca`.
- `ca.key`: the CA's private key (mode 0600). Kept to issue server certificates again
  (a new broker name or address) without touching the controllers; anyone holding it can
  impersonate the broker to them.
- `server.crt`, `server.key` (0600): Mosquitto's `certfile` and `keyfile`.

An existing CA is reused, so running the generator again (new names, new tables) keeps
every controller's `ca.der` valid; the server certificate is issued anew each time.
"""

from __future__ import annotations

import ipaddress
import os
import secrets
import shutil
import subprocess
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

NOT_BEFORE = "19900101000000Z"
NOT_AFTER = "20491231235959Z"
DEFAULT_NAMES = ("localhost", "127.0.0.1")
"""Always in the server certificate: the daemon on the broker's own machine connects so."""


class CertError(RuntimeError):
    """openssl is missing or failed (its message says why)."""


@dataclass(frozen=True, slots=True)
class TlsFiles:
    """Where the CA and the broker's certificate were written."""

    ca_cert: Path
    ca_der: Path
    ca_key: Path
    cert: Path
    key: Path
    names: tuple[str, ...]


def openssl() -> str:
    exe = shutil.which("openssl")
    if exe is None:
        raise CertError("the openssl command is needed to make certificates "
                        "(apt-get install openssl)")
    return exe


def _run(*args: str, cwd: Path) -> None:
    proc = subprocess.run([openssl(), *args], cwd=cwd, capture_output=True, text=True,
                          check=False)
    if proc.returncode != 0:
        raise CertError(f"openssl {args[0]} failed: {proc.stderr.strip()}")


def split_names(names: Iterable[str]) -> tuple[list[str], list[str]]:
    """(DNS names, IP addresses), each once, DEFAULT_NAMES first."""
    dns: list[str] = []
    ips: list[str] = []
    for raw in (*DEFAULT_NAMES, *names):
        name = raw.strip()
        if not name:
            continue
        try:
            ip = str(ipaddress.ip_address(name))
        except ValueError:
            if not all(c.isalnum() or c in "-." for c in name) or name.startswith("."):
                raise ValueError(f"not a host name or IP address: {name!r}") from None
            if name.lower() not in dns:
                dns.append(name.lower())
        else:
            if ip not in ips:
                ips.append(ip)
    return dns, ips


def _config(work: Path, dns: list[str], ips: list[str]) -> Path:
    alt = [f"DNS.{i} = {n}" for i, n in enumerate(dns, 1)]
    alt += [f"IP.{i} = {a}" for i, a in enumerate(ips, 1)]
    text = f"""[ ca ]
default_ca = dialbox
[ dialbox ]
database = {work}/index.txt
new_certs_dir = {work}
serial = {work}/serial
default_md = sha256
policy = anything
unique_subject = no
email_in_dn = no
copy_extensions = none
[ anything ]
commonName = supplied
[ v3_ca ]
basicConstraints = critical,CA:true,pathlen:0
keyUsage = critical,keyCertSign,cRLSign
subjectKeyIdentifier = hash
[ v3_server ]
basicConstraints = critical,CA:false
keyUsage = critical,digitalSignature
extendedKeyUsage = serverAuth
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid
subjectAltName = @alt
[ alt ]
{chr(10).join(alt)}
"""
    cnf = work / "openssl.cnf"
    cnf.write_text(text)
    (work / "index.txt").write_text("")
    return cnf


def _sign(work: Path, cnf: Path, csr: Path, out: Path, extensions: str, ca_key: Path,
          ca_cert: Path | None) -> None:
    (work / "serial").write_text(secrets.token_hex(16) + "\n")  # a random serial number
    args = ["ca", "-batch", "-config", str(cnf), "-in", str(csr), "-out", str(out),
            "-keyfile", str(ca_key), "-extensions", extensions, "-startdate", NOT_BEFORE,
            "-enddate", NOT_AFTER, "-notext"]
    args += ["-selfsign"] if ca_cert is None else ["-cert", str(ca_cert)]
    _run(*args, cwd=work)


def _new_key(path: Path, work: Path) -> None:
    tmp = work / (path.name + ".new")
    _run("genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out",
         str(tmp), cwd=work)
    tmp.chmod(0o600)
    os.replace(tmp, path)


def make_tls(out_dir: str | Path, names: Iterable[str], *, owner: str | None = None) -> TlsFiles:
    """Write (or keep) the CA in out_dir and issue the broker's certificate for `names`
    (host names and IP addresses, besides localhost and 127.0.0.1).

    `owner`: when run as root, the user that must read server.key (Mosquitto reads it
    after switching to its own user)."""
    dns, ips = split_names(names)
    out = Path(out_dir).resolve()
    out.mkdir(parents=True, exist_ok=True)
    ca_cert, ca_der, ca_key = out / "ca.crt", out / "ca.der", out / "ca.key"
    cert, key = out / "server.crt", out / "server.key"
    with tempfile.TemporaryDirectory(prefix="dialbox-tls-") as tmp:
        work = Path(tmp)
        cnf = _config(work, dns, ips)
        if not (ca_cert.exists() and ca_key.exists()):
            _new_key(ca_key, work)
            _run("req", "-new", "-key", str(ca_key), "-subj", "/CN=dialbox broker CA", "-out",
                 str(work / "ca.csr"), cwd=work)
            _sign(work, cnf, work / "ca.csr", work / "ca.crt", "v3_ca", ca_key, None)
            shutil.copy(work / "ca.crt", ca_cert)
        _run("x509", "-in", str(ca_cert), "-outform", "DER", "-out", str(ca_der), cwd=work)
        _new_key(key, work)
        _run("req", "-new", "-key", str(key), "-subj", "/CN=dialbox broker", "-out",
             str(work / "server.csr"), cwd=work)
        _sign(work, cnf, work / "server.csr", work / "server.crt", "v3_server", ca_key, ca_cert)
        shutil.copy(work / "server.crt", cert)
    chown(key, owner)
    return TlsFiles(ca_cert, ca_der, ca_key, cert, key, (*dns, *ips))


def chown(path: Path, owner: str | None) -> None:
    """Give a secret file to `owner` when running as root (no-op otherwise)."""
    if owner is None or os.geteuid() != 0:
        return
    import pwd

    try:
        pw = pwd.getpwnam(owner)
    except KeyError:
        return  # no such user here: whoever installs the files sets the owner
    os.chown(path, pw.pw_uid, pw.pw_gid)
