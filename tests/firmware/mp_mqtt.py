"""Run under the MicroPython unix port: the firmware's MQTT client against a real broker.

usage: mp_mqtt.py PORT CLIENT_ID RETRY_MS. Echoes t/in to t/out at QoS 1, keeps
reconnecting, prints one line per event: "connected N", "echo PAYLOAD", "acked N".
"""

import asyncio
import sys

from dialbox_fw.transports.mqtt import MqttClient, MqttError

port = int(sys.argv[1])
cid = sys.argv[2]
retry_ms = int(sys.argv[3])
status = "t/%s/status" % cid
inbox = []


def on_message(topic, payload, retained):
    inbox.append(payload)


async def main():
    c = MqttClient(
        cid,
        "127.0.0.1",
        port,
        keepalive=5,
        will=(status, b"offline", True, 1),
        on_message=on_message,
        retry_ms=retry_ms,
    )
    connects = 0
    backoff = 0.1
    while True:
        try:
            await c.connect(timeout=3)
            await c.subscribe("t/in", 1)
            pid = await c.publish(status, b"online", qos=1, retain=True)
            while not c.acked(pid) and c.connected:
                await asyncio.sleep(0.02)
        except MqttError:
            await asyncio.sleep(backoff)
            backoff = min(backoff * 2, 1.0)
            continue
        backoff = 0.1
        connects += 1
        print("connected", connects)
        while c.connected:
            while inbox:
                p = inbox.pop(0)
                pid = await c.publish("t/out", p, qos=1)
                print("echo", p.decode())
                while not c.acked(pid) and c.connected:
                    await asyncio.sleep(0.02)
                if c.acked(pid):
                    print("acked", pid, "retries", c.retries)
            await asyncio.sleep(0.02)


asyncio.run(main())
