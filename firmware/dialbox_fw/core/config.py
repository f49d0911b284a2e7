"""The provisioned configuration: fields, defaults and the checks run at boot."""

import json

from dialbox_protocol import codec

FIELDS = ("device", "colour", "ssid", "psk", "broker", "port", "user", "password", "table", "key")
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
    return None


def from_message(msg):
    """The configuration carried by a `config` frame."""
    cfg = {}
    for f in FIELDS:
        cfg[f] = msg[f]
    return cfg


def key(cfg):
    """The device key (bytes) this controller proves in each hello, or None."""
    return codec.device_key(cfg.get("key", ""))


def uses_mqtt(cfg):
    return bool(cfg.get("ssid") or cfg.get("broker"))


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
