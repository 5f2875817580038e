"""The loopback LLM server answers a keep-alive request at loopback speed: a response written as
headers then body waits ~40 ms for the client's delayed ACK (Nagle), which capped every benchmark
client near 22 calls/s per connection and hid the gateway's own cost behind that wait (the speed itself
is benchmarks/gateway_throughput.py's)."""

import socket

import httpx

from tests.doubles.fake_server import FakeLlmServer, Reply


def test_each_response_leaves_in_one_write_on_a_no_delay_socket(monkeypatch):
    """Headers and body written apart wait for the client's delayed ACK; one write with TCP_NODELAY does not.
    The server's writes are counted on its side of each connection (local port = the server's)."""
    writes: list[tuple[int, bool]] = []
    real_send, real_sendall = socket.socket.send, socket.socket.sendall

    def counted(real):
        def write(sock, data, *args):
            if sock.getsockname()[1] == port:
                writes.append((len(data), bool(sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))))
            return real(sock, data, *args)
        return write

    body = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
    with FakeLlmServer() as srv, httpx.Client() as client:
        port = int(srv.openai_base_url.rsplit(":", 1)[1].split("/")[0])
        url = f"{srv.openai_base_url}/chat/completions"
        client.post(url, json=body).raise_for_status()  # the connection, then kept alive
        monkeypatch.setattr(socket.socket, "send", counted(real_send))
        monkeypatch.setattr(socket.socket, "sendall", counted(real_sendall))
        for _ in range(5):
            client.post(url, json=body).raise_for_status()
    assert len(writes) == 5, writes  # one write per response: headers and body together
    assert all(n > 100 and nodelay for n, nodelay in writes), writes
    assert srv.requests == 6


def test_errors_and_scripted_headers_still_arrive_whole_on_one_connection():
    with FakeLlmServer() as srv, httpx.Client() as client:
        srv.script(Reply(status=429, headers={"retry-after": "3"}), Reply(raw_body=b'{"choices": [tru'))
        url = f"{srv.openai_base_url}/chat/completions"
        first = client.post(url, json={"model": "m", "messages": []})
        second = client.post(url, json={"model": "m", "messages": []})
        third = client.post(url, json={"model": "m", "messages": []})
    assert first.status_code == 429 and first.headers["retry-after"] == "3"
    assert first.json()["error"]["message"] == "scripted error 429"
    assert second.content == b'{"choices": [tru'
    assert third.json()["choices"][0]["message"]["content"]
