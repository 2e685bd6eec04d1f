package ui

import (
	"embed"
	"io/fs"
	"net"
	"net/http"
	"strings"
)

//go:embed assets
var assets embed.FS

// Config is what the UI serves.
type Config struct {
	Backend Backend
	History *History
	// LoopbackOnly refuses requests whose Host header is not a loopback name or address:
	// with the UI on loopback and no token, a web page the user visits could otherwise point
	// a name of its own at 127.0.0.1 (DNS rebinding) and read or cancel through it.
	LoopbackOnly bool
}

// Handler serves the UI: the page and its script and style at / (public: they hold no data)
// and the JSON API under /api/ (authorized by the Backend). Requests that change something
// are POSTs, refused cross-origin (http.CrossOriginProtection), so another site cannot send
// them from the user's browser.
func Handler(c Config) http.Handler {
	static, err := fs.Sub(assets, "assets")
	if err != nil {
		panic(err) // the embedded directory exists
	}
	a := &api{backend: c.Backend, history: c.History}
	mux := http.NewServeMux()
	files := http.FileServerFS(static)
	mux.Handle("GET /{$}", files)
	mux.Handle("GET /app.js", files)
	mux.Handle("GET /app.css", files)
	mux.HandleFunc("GET /api/overview", a.handleOverview)
	mux.HandleFunc("GET /api/queries/{run}", a.handleQuery)
	mux.HandleFunc("POST /api/operations/cancel", a.handleCancel)
	mux.HandleFunc("POST /api/queries/stop", a.handleStop)
	var h http.Handler = http.NewCrossOriginProtection().Handler(mux)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if c.LoopbackOnly && !loopbackHost(r.Host) {
			http.Error(w, "this UI answers only requests to a loopback address", http.StatusMisdirectedRequest)
			return
		}
		hd := w.Header()
		hd.Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'")
		hd.Set("X-Content-Type-Options", "nosniff")
		hd.Set("Referrer-Policy", "no-referrer")
		h.ServeHTTP(w, r)
	})
}

// loopbackHost reports whether a Host header names this machine: localhost or a loopback IP,
// with or without a port.
func loopbackHost(host string) bool {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.Trim(host, "[]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
