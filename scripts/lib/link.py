#!/usr/bin/env python3
"""A link in the lab: a userspace TCP relay that makes 127.0.0.1 look like a real network path.

Each connection accepted on --port (0: a free one, printed on the first line of standard output)
is relayed to --upstream. A connection waits one round trip before its first bytes go (the TCP
handshake), every chunk is delayed by half the round trip each way, and all connections together
share --mbit of bandwidth in each direction (a chunk leaves once the link is free, then takes
its bytes' time on the wire). At most about one bandwidth-delay product is buffered per direction
of a connection, so a sender feels the link as it would a real one. Kernel netem is not needed.

    scripts/lib/link.py --upstream 127.0.0.1:8443 --rtt-ms 40 --mbit 100 [--port 0] [--seconds 3600]

It stops by itself after --seconds (default an hour), or on SIGTERM.
"""
import argparse
import asyncio
import signal
import sys

CHUNK = 16 * 1024


class Wire:
    """One direction of the link, shared by every connection: when it is next free."""

    def __init__(self, bytes_per_second):
        self.rate = bytes_per_second
        self.free_at = 0.0

    def send(self, size, now):
        """The time a chunk of `size` bytes, ready at `now`, has left the sender's end."""
        self.free_at = max(now, self.free_at) + size / self.rate
        return self.free_at


async def carry(reader, writer, wire, delay, buffered_limit):
    """Copies reader to writer through `wire`, each chunk arriving `delay` seconds after it left."""
    loop = asyncio.get_running_loop()
    queue = asyncio.Queue()
    state = {"buffered": 0}
    room = asyncio.Event()
    room.set()

    async def deliver():
        while True:
            due, data = await queue.get()
            if data is None:
                break
            wait = due - loop.time()
            if wait > 0:
                await asyncio.sleep(wait)
            try:
                writer.write(data)
                await writer.drain()
            except (ConnectionError, OSError):
                break
            state["buffered"] -= len(data)
            if state["buffered"] < buffered_limit:
                room.set()
        try:
            if writer.can_write_eof():
                writer.write_eof()
        except (ConnectionError, OSError):
            pass

    delivering = asyncio.create_task(deliver())
    try:
        while True:
            await room.wait()
            try:
                data = await reader.read(CHUNK)
            except (ConnectionError, OSError):
                break
            if not data:
                break
            left = wire.send(len(data), loop.time())
            state["buffered"] += len(data)
            if state["buffered"] >= buffered_limit:
                room.clear()
            queue.put_nowait((left + delay, data))
    finally:
        queue.put_nowait((0.0, None))
        await delivering


async def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--upstream", required=True, help="host:port to relay to")
    parser.add_argument("--rtt-ms", type=float, required=True, help="round trip, in milliseconds")
    parser.add_argument("--mbit", type=float, required=True, help="bandwidth of each direction, shared, Mbit/s")
    parser.add_argument("--port", type=int, default=0, help="port to listen on, 127.0.0.1 (0: a free one)")
    parser.add_argument("--seconds", type=float, default=3600, help="stop after this long")
    options = parser.parse_args()
    host, port = options.upstream.rsplit(":", 1)
    rtt = options.rtt_ms / 1000
    rate = options.mbit * 1e6 / 8
    down, up = Wire(rate), Wire(rate)
    # A bandwidth-delay product, and a few chunks more, may be on its way per direction.
    limit = int(rate * rtt) + 4 * CHUNK

    async def relay(client_reader, client_writer):
        await asyncio.sleep(rtt)  # the handshake's round trip
        try:
            server_reader, server_writer = await asyncio.open_connection(host, int(port))
        except OSError:
            client_writer.close()
            return
        await asyncio.gather(
            carry(client_reader, server_writer, up, rtt / 2, limit),
            carry(server_reader, client_writer, down, rtt / 2, limit))
        for writer in (client_writer, server_writer):
            writer.close()

    server = await asyncio.start_server(relay, "127.0.0.1", options.port)
    print(server.sockets[0].getsockname()[1], flush=True)
    stop = asyncio.Event()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
    try:
        await asyncio.wait_for(stop.wait(), options.seconds)
    except asyncio.TimeoutError:
        pass
    server.close()


if __name__ == "__main__":
    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        sys.exit(130)
