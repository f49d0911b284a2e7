"""A small asynchronous MQTT 3.1.1 client for the controller (written from the OASIS spec).

Connect with last will and clean session, QoS 0/1 publish (QoS 1 kept until PUBACK and
sent again with DUP after a timeout that doubles, and after a reconnect), subscribe,
keepalive PINGREQ, and loss detection (EOF, write error, or no packet within 1.5 x
keepalive). Reconnecting is the caller's job (see mqtt_link.py), as in aiomqtt.
Runs on MicroPython's asyncio and on CPython's.
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


def _str(s):
    b = s.encode() if type(s) is str else bytes(s)
    return bytes((len(b) >> 8, len(b) & 0xFF)) + b


def _packet(first, body):
    """Fixed header (type/flags byte, remaining length) + body."""
    n = len(body)
    head = bytearray((first,))
    while True:
        byte = n & 0x7F
        n >>= 7
        head.append(byte | 0x80 if n else byte)
        if not n:
            break
    return bytes(head) + body


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
    ):
        self.client_id = client_id
        self.host = host
        self.port = port
        self.user = user
        self.password = password
        self.keepalive = keepalive
        self.will = will  # (topic, payload bytes, retain, qos) or None
        self.on_message = on_message
        self.on_close = on_close  # called (no arguments) whenever the connection closes
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

    async def connect(self, timeout=10):
        """Open the TCP connection and complete CONNECT/CONNACK; raises MqttError."""
        await self.close()
        try:
            self.reader, self.writer = await asyncio.wait_for(
                asyncio.open_connection(self.host, self.port), timeout
            )
            self.writer.write(self._connect_packet())
            await self.writer.drain()
            first, body = await asyncio.wait_for(self._read_packet(), timeout)
        except Exception as e:
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
        data = b""
        while len(data) < n:
            chunk = await self.reader.read(n - len(data))
            if not chunk:
                raise MqttError("connection closed by the broker")
            data += chunk
        return data

    async def _read_packet(self):
        first = (await self._read_exactly(1))[0]
        n = 0
        shift = 0
        while True:
            b = (await self._read_exactly(1))[0]
            n |= (b & 0x7F) << shift
            shift += 7
            if not b & 0x80:
                break
            if shift > 21:
                raise MqttError("bad remaining length")
        body = await self._read_exactly(n) if n else b""
        return first, body

    async def _write(self, data):
        if not self.connected or self.writer is None:
            raise MqttError("not connected")
        async with self.lock:
            try:
                self.writer.write(data)
                await self.writer.drain()
            except Exception as e:
                await self._lost()
                raise MqttError("write failed: %r" % (e,))
        self.last_tx = ticks_ms()

    async def _read_loop(self):
        try:
            while True:
                first, body = await self._read_packet()
                self.last_rx = ticks_ms()
                kind = first & 0xF0
                if kind == _PUBLISH:
                    await self._on_publish(first, body)
                elif kind == _PUBACK:
                    self.pending.pop((body[0] << 8) | body[1], None)
                elif kind == _SUBACK & 0xF0:
                    self.subacks[(body[0] << 8) | body[1]] = body[2:]
        except asyncio.CancelledError:
            raise
        except Exception:
            pass
        await self._lost()

    async def _on_publish(self, first, body):
        qos = (first >> 1) & 3
        n = (body[0] << 8) | body[1]
        topic = body[2 : 2 + n].decode()
        i = 2 + n
        if qos:
            pid = (body[i] << 8) | body[i + 1]
            i += 2
            await self._write(_packet(_PUBACK, bytes((pid >> 8, pid & 0xFF))))
        if self.on_message is not None:
            self.on_message(topic, body[i:], bool(first & 1))

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
                return

    async def _send_publish(self, pid, dup):
        e = self.pending[pid]
        topic, payload, retain, _due, interval = e
        if dup:
            interval = min(interval * 2, self.retry_max_ms)
            e[4] = interval
        e[3] = ticks_add(ticks_ms(), interval)
        first = _PUBLISH | 0x02 | (_DUP if dup else 0) | (1 if retain else 0)
        body = _str(topic) + bytes((pid >> 8, pid & 0xFF)) + payload
        await self._write(_packet(first, body))

    async def publish(self, topic, payload, qos=0, retain=False):
        """Send a message. QoS 1 is kept and retried until its PUBACK; returns its pid."""
        if qos == 0:
            await self._write(_packet(_PUBLISH | (1 if retain else 0), _str(topic) + payload))
            return 0
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
                await w.wait_closed()
            except Exception:
                pass
