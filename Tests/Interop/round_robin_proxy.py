"""A TCP load balancer for the interop suite's cluster runs: each connection it accepts goes to
the next of several Hearth nodes in turn, bytes passed through as they are (HTTP, WebSocket,
event streams), so that the clients of one test are spread across the nodes."""

import asyncio
import itertools
import threading


class RoundRobinProxy:
    """Listens on 127.0.0.1:`port` and sends each connection to the next of `backends`
    (`(host, port)` pairs), until `stop()`."""

    def __init__(self, port, backends):
        self.port = port
        self.backends = itertools.cycle(backends)
        self.loop = asyncio.new_event_loop()
        self.started = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.server = None
        self.connections = set()

    def start(self):
        self.thread.start()
        if not self.started.wait(10):
            raise RuntimeError("the proxy did not start")
        return self

    def stop(self):
        if not self.thread.is_alive():
            return
        self.loop.call_soon_threadsafe(self._close)
        self.thread.join(10)

    def _run(self):
        asyncio.set_event_loop(self.loop)
        self.server = self.loop.run_until_complete(
            asyncio.start_server(self._accept, "127.0.0.1", self.port, reuse_address=True))
        self.started.set()
        self.loop.run_forever()
        pending = asyncio.all_tasks(self.loop)
        for task in pending:
            task.cancel()
        self.loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
        self.loop.close()

    def _close(self):
        self.server.close()
        for writer in list(self.connections):
            writer.close()
        self.loop.stop()

    async def _accept(self, client_reader, client_writer):
        host, port = next(self.backends)
        try:
            node_reader, node_writer = await asyncio.open_connection(host, port)
        except OSError:
            client_writer.close()
            return
        self.connections.update((client_writer, node_writer))
        await asyncio.gather(self._pipe(client_reader, node_writer), self._pipe(node_reader, client_writer))
        self.connections.difference_update((client_writer, node_writer))
        client_writer.close()
        node_writer.close()

    @staticmethod
    async def _pipe(reader, writer):
        try:
            while data := await reader.read(65536):
                writer.write(data)
                await writer.drain()
            if writer.can_write_eof():
                writer.write_eof()
        except (OSError, asyncio.CancelledError):
            writer.close()
