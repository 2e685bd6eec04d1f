package pyworker

import (
	"encoding/binary"
	"io"
	"net"
	"testing"
)

// clientAuth is the worker's side of the handshake (pyspark.util._do_server_auth, then the pid of
// get_sock_file_to_executor); it returns the server's reply.
func clientAuth(t *testing.T, c net.Conn, secret string, pid uint32) string {
	t.Helper()
	msg := binary.BigEndian.AppendUint32(nil, uint32(len(secret)))
	if _, err := c.Write(append(msg, secret...)); err != nil {
		t.Error(err)
		return ""
	}
	var n [4]byte
	if _, err := io.ReadFull(c, n[:]); err != nil {
		t.Error(err)
		return ""
	}
	reply := make([]byte, binary.BigEndian.Uint32(n[:]))
	if _, err := io.ReadFull(c, reply); err != nil {
		t.Error(err)
		return ""
	}
	if string(reply) == "ok" {
		c.Write(binary.BigEndian.AppendUint32(nil, pid))
	}
	return string(reply)
}

func TestAuthenticate(t *testing.T) {
	for _, c := range []struct {
		sent, want string
		ok         bool
	}{{"s3cret", "ok", true}, {"wrong", "err", false}, {"", "err", false}} {
		server, client := net.Pipe()
		got := make(chan string, 1)
		go func() { got <- clientAuth(t, client, c.sent, 42); client.Close() }()
		err := authenticate(server, "s3cret")
		if reply := <-got; reply != c.want {
			t.Errorf("secret %q: reply %q, want %q", c.sent, reply, c.want)
		}
		if (err == nil) != c.ok {
			t.Errorf("secret %q: authenticate = %v", c.sent, err)
		}
		server.Close()
	}
}
