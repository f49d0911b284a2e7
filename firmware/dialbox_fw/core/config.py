"""The provisioned configuration: fields, defaults and the checks run at boot.

FIELDS are what a `config` frame carries (docs/protocol.md). OPTIONAL keys exist only in
config.json (written by hand, e.g. with mpremote): a `config` frame cannot carry them, so
provisioning keeps the ones of the config.json it replaces (from_message).

- `country`: the WiFi country, two capitals or digits (ISO 3166 alpha-2 such as "DE",
  "US"; ESP-IDF also knows "01", world safe mode), passed to network.country() before
  WiFi starts, where the port has it; "" or absent leaves the port's default.
- `tls`: true = MQTT over TLS, false = plain TCP; absent = TLS exactly when port is 8883
  (TLS_PORT). TLS always verifies the broker's certificate against CA_FILE on the flash
  (DER); a TLS configuration without that file is refused.
"""

import json

from dialbox_protocol import codec

FIELDS = ("device", "colour", "ssid", "psk", "broker", "port", "user", "password", "table", "key")
OPTIONAL = ("country", "tls")
TLS_PORT = 8883
CA_FILE = "ca.der"
LIMITS = {
    "device": 32,
    "colour": 6,
    "ssid": 32,
    "psk": 63,
    "broker": 64,
    "user": 32,
    "password": 64,
    "table": 32,
    "key": 43,
}
_ID_CHARS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-"
_HEX = "0123456789abcdefABCDEF"
_CC = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"  # ISO 3166 alpha-2, or e.g. ESP-IDF's "01"


def defaults():
    return {
        "device": "",
        "colour": "",
        "ssid": "",
        "psk": "",
        "broker": "",
        "port": 1883,
        "user": "",
        "password": "",
        "table": "table1",
        "key": "",
    }


def check(cfg):
    """None when cfg is a valid configuration, else a short reason naming the field."""
    if type(cfg) is not dict:
        return "config is not an object"
    if "key" not in cfg:
        cfg["key"] = ""  # provisioned before device keys: no key (the host decides)
    for f in FIELDS:
        if f not in cfg:
            return "missing " + f
    if type(cfg["port"]) is not int or not 0 <= cfg["port"] <= 65535:
        return "bad port"
    for f, limit in LIMITS.items():
        v = cfg[f]
        if type(v) is not str or len(v) > limit:
            return "bad " + f
    for ch in cfg["device"]:
        if ch not in _ID_CHARS:
            return "bad device"
    c = cfg["colour"]
    if c and (len(c) != 6 or any(ch not in _HEX for ch in c)):
        return "bad colour"
    if cfg["ssid"] and not cfg["broker"]:
        return "broker missing"
    if cfg["broker"] and not cfg["table"]:
        return "table missing"
    if cfg["key"] and codec.device_key(cfg["key"]) is None:
        return "bad key"
    cc = cfg.get("country", "")
    if type(cc) is not str or (cc and (len(cc) != 2 or any(ch not in _CC for ch in cc))):
        return "bad country"
    if "tls" in cfg and type(cfg["tls"]) is not bool:
        return "bad tls"
    if uses_mqtt(cfg) and uses_tls(cfg) and not _exists(CA_FILE):
        return "tls: no " + CA_FILE  # never TLS without verifying the broker
    return None


def _exists(path):
    import os

    try:
        os.stat(path)
        return True
    except OSError:
        return False


def from_message(msg, path="config.json"):
    """The configuration carried by a `config` frame, plus the OPTIONAL keys of the
    config.json it replaces (a frame cannot carry them)."""
    cfg = {}
    for f in FIELDS:
        cfg[f] = msg[f]
    try:
        with open(path) as fh:
            old = json.loads(fh.read())
        for k in OPTIONAL:
            if k in old:
                cfg[k] = old[k]
    except (OSError, ValueError, TypeError, AttributeError):
        pass  # no readable previous file: nothing to keep
    return cfg


def key(cfg):
    """The device key (bytes) this controller proves in each hello, or None."""
    return codec.device_key(cfg.get("key", ""))


def uses_mqtt(cfg):
    return bool(cfg.get("ssid") or cfg.get("broker"))


def uses_tls(cfg):
    """MQTT over TLS: the `tls` key when present, else port 8883."""
    t = cfg.get("tls")
    if type(t) is bool:
        return t
    return cfg.get("port") == TLS_PORT


def load(path="config.json"):
    """(config, problem): defaults with no problem when absent, problem text when broken."""
    try:
        with open(path) as f:
            text = f.read()
    except OSError:
        return defaults(), None
    try:
        cfg = json.loads(text)
    except ValueError:
        return defaults(), "config.json is not JSON"
    problem = check(cfg)
    if problem is not None:
        return defaults(), problem
    return cfg, None


def save(cfg, path="config.json"):
    with open(path + ".tmp", "w") as f:
        json.dump(cfg, f)
    import os

    os.rename(path + ".tmp", path)
