"""Run under the MicroPython unix port: the firmware's MQTT client over TLS, verified.

usage: mp_tls.py PORT CA_DER USER PASSWORD CASE HOST
Connects to HOST:PORT (HOST resolved to 127.0.0.1 by a stand-in resolver) with TLS against
the CA in CA_DER; CASE "ok" then publishes on the user's up topic and waits for one message
on its down topic. Prints "connected", "echo PAYLOAD", or "refused ERROR".
"""

import asyncio
import sys

from dialbox_fw.transports.mqtt import MqttClient, MqttError, tls_context

port, ca, user, password, case, host = sys.argv[1:7]
inbox = []


def on_message(topic, payload, retained):
    inbox.append(payload)


async def main():
    c = MqttClient(
        "dbtls",
        host,
        int(port),
        user,
        password,
        on_message=on_message,
        ssl=tls_context(ca),
        resolver=lambda h, p: "127.0.0.1",
    )
    try:
        await c.connect(timeout=5)
    except MqttError as e:
        print("refused", repr(e))
        return
    print("connected")
    base = "dialbox/t9/dev/%s/" % user
    await c.subscribe(base + "down", 0)
    await c.publish(base + "up", b"hello over tls", qos=0)
    print("published")
    for _ in range(500):
        if inbox:
            print("echo", inbox[0].decode())
            break
        await asyncio.sleep_ms(20)
    await c.disconnect()


asyncio.run(main())
