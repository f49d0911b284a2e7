"""A small asynchronous MQTT 3.1.1 client for the controller (written from the OASIS spec).

Connect with last will and clean session, QoS 0/1 publish (QoS 1 kept until PUBACK and
sent again with DUP after a timeout that doubles, and after a reconnect), subscribe,
keepalive PINGREQ, and loss detection (EOF, write error, or no packet within 1.5 x
keepalive). Reconnecting is the caller's job (see mqtt_link.py), as in aiomqtt.
Runs on MicroPython's asyncio and on CPython's.

Plain TCP, or TLS when given an SSL context (tls_context(): the broker's certificate is
verified against a CA and its name or IP, on both runtimes). The broker's address is
resolved once and kept: only a failed connect resolves the name again, and an IP literal
is never resolved (MicroPython's getaddrinfo blocks the whole program while it waits for
DNS; docs/controller.md).
"""

try:
    from micropython import const
except ImportError:

    def const(x):
        return x


import asyncio

from dialbox_fw.core.clock import ticks_add, ticks_diff, ticks_ms

_CONNECT = const(0x10)
_CONNACK = const(0x20)
_PUBLISH = const(0x30)
_PUBACK = const(0x40)
_SUBSCRIBE = const(0x82)
_SUBACK = const(0x90)
_PINGREQ = const(0xC0)
_PINGRESP = const(0xD0)
_DISCONNECT = const(0xE0)
_DUP = const(0x08)


class MqttError(Exception):
    """Connecting failed, the broker refused, or the connection was lost."""


def is_ip(host):
    """True for an IP literal: digits and dots (IPv4), or a colon (IPv6). Nothing to look
    up; a malformed one fails in connect like an unreachable address."""
    if ":" in host:
        return True
    for b in host.encode():  # bytes, not characters: iterating a str interns each one
        if b != 46 and not 48 <= b <= 57:  # "." and "0"-"9"
            return False
    return True


def resolve(host, port):
    """The broker's IPv4 address as text (preferred; else the first address found), or
    host itself when the runtime's answer cannot be read. Blocks while it asks DNS.

    getaddrinfo's sockaddr is a tuple on CPython and on the boards (lwIP), raw
    `struct sockaddr_in` bytes on the unix port."""
    import socket

    found = socket.getaddrinfo(host, port, 0, socket.SOCK_STREAM)
    pick = found[0]
    for ai in found:
        if ai[0] == socket.AF_INET:
            pick = ai
            break
    sa = pick[-1]
    if type(sa) is tuple:
        return sa[0]
    if len(sa) >= 8 and 2 in (sa[0], sa[1]):  # AF_INET, in either byte order
        return "%d.%d.%d.%d" % (sa[4], sa[5], sa[6], sa[7])
    return host


def tls_context(ca_path):
    """A client SSL context that requires the broker's certificate to chain to the CA in
    ca_path (one DER certificate) and to name the host connected to (checked by the
    runtime: Mbed TLS on MicroPython, OpenSSL on CPython)."""
    import ssl

    with open(ca_path, "rb") as f:
        ca = f.read()
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.verify_mode = ssl.CERT_REQUIRED  # MicroPython's default is CERT_NONE
    ctx.load_verify_locations(cadata=ca)  # DER: the unix port's Mbed TLS cannot read PEM
    return ctx


def _str(s):
    b = s.encode() if type(s) is str else bytes(s)
    return bytes((len(b) >> 8, len(b) & 0xFF)) + b


def _header(first, n):
    """Fixed header: type/flags byte and the remaining length n."""
    head = bytearray((first,))
    while True:
        byte = n & 0x7F
        n >>= 7
        head.append(byte | 0x80 if n else byte)
        if not n:
            break
    return head


def _packet(first, body):
    """Fixed header + body, in one piece (small packets)."""
    return bytes(_header(first, len(body))) + body


class MqttClient:
    """One MQTT connection. on_message(topic: str, payload: bytes, retained: bool).

    on_close() runs every time the connection is closed or lost (a caller waiting for
    work of its own wakes up and sees `connected` is False).
    """

    def __init__(
        self,
        client_id,
        host,
        port=1883,
        user="",
        password="",
        keepalive=15,
        will=None,
        on_message=None,
        retry_ms=1000,
        retry_max_ms=8000,
        on_close=None,
        ssl=None,
        resolver=None,
        on_oom=None,
    ):
        self.client_id = client_id
        self.on_oom = on_oom  # called (the MemoryError) when reading a packet ran out of heap
        self.host = host
        self.port = port
        self.user = user
        self.password = password
        self.keepalive = keepalive
        self.will = will  # (topic, payload bytes, retain, qos) or None
        self.on_message = on_message
        self.on_close = on_close  # called (no arguments) whenever the connection closes
        self.ssl = ssl  # None: plain TCP; else an SSL context (tls_context())
        self.resolver = resolver or resolve  # (host, port) -> address text; may block
        self.addr = None  # the resolved broker address, kept until a connect fails
        self.resolves = 0  # DNS look-ups made (diagnostics and tests)
        self.retry_ms = retry_ms
        self.retry_max_ms = retry_max_ms
        self.connected = False
        self.reader = None
        self.writer = None
        self.pid = 0
        self.pending = {}  # pid -> [topic, payload, retain, due, interval]
        self.subacks = {}
        self.last_rx = 0
        self.last_tx = 0
        self.retries = 0  # QoS 1 publishes sent again (diagnostics and tests)
        self.tasks = []
        self.lock = asyncio.Lock()

    def _next_pid(self):
        self.pid = self.pid % 65535 + 1
        return self.pid

    def _connect_packet(self):
        flags = 0x02  # clean session
        payload = _str(self.client_id)
        if self.will is not None:
            topic, msg, retain, qos = self.will
            flags |= 0x04 | (qos << 3) | (0x20 if retain else 0)
            payload += _str(topic) + _str(msg)
        if self.user:
            flags |= 0x80
            payload += _str(self.user)
            if self.password:
                flags |= 0x40
                payload += _str(self.password)
        body = _str("MQTT") + bytes((4, flags, self.keepalive >> 8, self.keepalive & 0xFF))
        return _packet(_CONNECT, body + payload)

    def address(self):
        """The broker's address: an IP literal as it is, a name resolved once and kept."""
        if self.addr is None:
            if is_ip(self.host):
                self.addr = self.host
            else:
                self.resolves += 1
                self.addr = self.resolver(self.host, self.port)
        return self.addr

    async def connect(self, timeout=10):
        """Open the connection (TCP, or TLS with self.ssl) and complete CONNECT/CONNACK;
        raises MqttError."""
        await self.close()
        try:
            addr = self.address()
            if self.ssl is None:
                opening = asyncio.open_connection(addr, self.port)
            else:  # the certificate must name the host as configured, not the address
                opening = asyncio.open_connection(
                    addr, self.port, ssl=self.ssl, server_hostname=self.host
                )
            self.reader, self.writer = await asyncio.wait_for(opening, timeout)
            self.writer.write(self._connect_packet())
            await self.writer.drain()
            first, body = await asyncio.wait_for(self._read_packet(), timeout)
        except Exception as e:
            self.addr = None  # resolve again next time: the name may point elsewhere now
            await self.close()
            raise MqttError("connect to %s:%d failed: %r" % (self.host, self.port, e))
        if first != _CONNACK or len(body) != 2 or body[1] != 0:
            await self.close()
            raise MqttError("broker refused the connection (code %d)" % (body[1] if body else -1))
        self.connected = True
        now = ticks_ms()
        self.last_rx = now
        self.last_tx = now
        self.tasks = [
            asyncio.create_task(self._read_loop()),
            asyncio.create_task(self._keepalive_loop()),
        ]
        for pid in list(self.pending):  # unacknowledged QoS 1 messages go out again
            await self._send_publish(pid, True)

    async def _read_exactly(self, n):
        """n bytes in one buffer, allocated once: MicroPython fills a bytearray in place
        (readinto), CPython has readexactly. A 1 KB payload is never copied to be read."""
        r = self.reader
        if not hasattr(r, "readinto"):  # CPython's StreamReader
            try:
                return await r.readexactly(n)
            except EOFError:  # IncompleteReadError
                raise MqttError("connection closed by the broker")
        buf = bytearray(n)
        mv = memoryview(buf)
        got = 0
        while got < n:
            k = await r.readinto(mv[got:])
            if k == 0:
                raise MqttError("connection closed by the broker")
            if k:  # None: woken with nothing to read yet (TLS record not complete)
                got += k
        return buf

    async def _byte(self):
        b = await self.reader.read(1)
        if not b:
            raise MqttError("connection closed by the broker")
        return b[0]

    async def _read_head(self):
        """(type/flags byte, remaining length) of the next packet."""
        first = await self._byte()
        n = 0
        shift = 0
        while True:
            b = await self._byte()
            n |= (b & 0x7F) << shift
            shift += 7
            if not b & 0x80:
                break
            if shift > 21:
                raise MqttError("bad remaining length")
        return first, n

    async def _read_packet(self):
        first, n = await self._read_head()
        body = await self._read_exactly(n) if n else b""
        return first, body

    async def _write(self, *parts):
        """Write a packet given in pieces (header, topic, payload frames...): a 1 KB
        payload is never copied into a new buffer on its way out."""
        if not self.connected or self.writer is None:
            raise MqttError("not connected")
        async with self.lock:
            try:
                w = self.writer
                for p in parts:
                    w.write(p)
                await w.drain()
            except Exception as e:  # MemoryError too: a packet cut short corrupts the stream
                await self._lost()
                raise MqttError("write failed: %r" % (e,))
        self.last_tx = ticks_ms()

    async def _read_loop(self):
        try:
            while True:
                first, n = await self._read_head()
                kind = first & 0xF0
                if kind == _PUBLISH:  # read piece by piece: the payload in its own buffer
                    await self._on_publish(first, n)
                    self.last_rx = ticks_ms()
                    continue
                body = await self._read_exactly(n) if n else b""
                self.last_rx = ticks_ms()
                if kind == _PUBACK:
                    self.pending.pop((body[0] << 8) | body[1], None)
                elif kind == _SUBACK & 0xF0:
                    self.subacks[(body[0] << 8) | body[1]] = body[2:]
        except asyncio.CancelledError:
            raise
        except Exception as e:  # the stream is cut mid-packet: the connection goes
            if isinstance(e, MemoryError) and self.on_oom is not None:
                self.on_oom(e)  # make room before the reconnect and the host's retransmission
        await self._lost()

    async def _on_publish(self, first, n):
        """A PUBLISH of remaining length n: topic, packet id (QoS 1), then the payload
        read straight into a buffer of its own (bytes, or a bytearray on MicroPython)."""
        qos = (first >> 1) & 3
        h = await self._read_exactly(2)
        t = (h[0] << 8) | h[1]
        topic = (await self._read_exactly(t)).decode() if t else ""
        n -= 2 + t
        if qos:
            h = await self._read_exactly(2)
            n -= 2
            await self._write(_packet(_PUBACK, bytes(h)))
        payload = await self._read_exactly(n) if n > 0 else b""
        if self.on_message is not None:
            self.on_message(topic, payload, bool(first & 1))

    async def _keepalive_loop(self):
        ka = self.keepalive * 1000
        while self.connected:
            await asyncio.sleep(0.25)
            now = ticks_ms()
            if ticks_diff(now, self.last_rx) > ka + ka // 2:
                await self._lost()
                return
            try:
                if ticks_diff(now, self.last_tx) >= ka // 2:
                    await self._write(bytes((_PINGREQ, 0)))
                for pid in list(self.pending):
                    e = self.pending.get(pid)
                    if e is not None and ticks_diff(now, e[3]) >= 0:
                        self.retries += 1
                        await self._send_publish(pid, True)
            except MqttError:
                return  # _write saw the loss and closed the connection
            except Exception:
                await self._lost()  # never a task that dies with an unretrieved exception
                return

    async def _send_publish(self, pid, dup):
        e = self.pending[pid]
        topic, payload, retain, _due, interval = e
        if dup:
            interval = min(interval * 2, self.retry_max_ms)
            e[4] = interval
        e[3] = ticks_add(ticks_ms(), interval)
        first = _PUBLISH | 0x02 | (_DUP if dup else 0) | (1 if retain else 0)
        t = _str(topic)
        await self._write(
            _header(first, len(t) + 2 + len(payload)), t, bytes((pid >> 8, pid & 0xFF)), payload
        )

    async def publish(self, topic, payload, qos=0, retain=False):
        """Send a message. QoS 1 is kept and retried until its PUBACK; returns its pid.

        payload: bytes, or (QoS 0) a list of bytes pieces sent as one message without
        joining them (the link's batched frames)."""
        if qos == 0:
            t = _str(topic)
            if type(payload) is list:
                n = len(t)
                for p in payload:
                    n += len(p)
                await self._write(_header(_PUBLISH | (1 if retain else 0), n), t, *payload)
            else:
                await self._write(
                    _header(_PUBLISH | (1 if retain else 0), len(t) + len(payload)), t, payload
                )
            return 0
        if type(payload) is list:
            payload = b"".join(payload)
        pid = self._next_pid()
        self.pending[pid] = [topic, bytes(payload), retain, 0, self.retry_ms]
        await self._send_publish(pid, False)
        return pid

    def acked(self, pid):
        return pid not in self.pending

    async def subscribe(self, topic, qos=1, timeout=10):
        pid = self._next_pid()
        body = bytes((pid >> 8, pid & 0xFF)) + _str(topic) + bytes((qos,))
        await self._write(_packet(_SUBSCRIBE, body))
        t0 = ticks_ms()
        while pid not in self.subacks:
            if not self.connected or ticks_diff(ticks_ms(), t0) > timeout * 1000:
                raise MqttError("no SUBACK for %s" % topic)
            await asyncio.sleep(0.02)
        codes = self.subacks.pop(pid)
        if codes and codes[0] == 0x80:
            raise MqttError("subscription to %s refused" % topic)

    async def disconnect(self):
        """Clean disconnect: the broker drops the will."""
        if self.connected:
            try:
                await self._write(bytes((_DISCONNECT, 0)))
            except MqttError:
                pass
        await self.close()

    async def _lost(self):
        self.connected = False
        await self.close(cancel_current=False)

    async def close(self, cancel_current=True):
        self.connected = False
        if self.on_close is not None:
            self.on_close()
        me = asyncio.current_task() if not cancel_current else None
        for t in self.tasks:
            if t is not me:
                t.cancel()
        self.tasks = []
        w = self.writer
        self.writer = None
        self.reader = None
        if w is not None:
            try:
                w.close()
                # bounded: a TLS close waits for the peer's close_notify on CPython
                await asyncio.wait_for(w.wait_closed(), 2)
            except Exception:
                pass
