package server

import (
	"net/http"
	"time"
)

// recorder remembers what was written, for the access log.
type recorder struct {
	http.ResponseWriter
	status    int
	bytes     int
	wrote     bool
	companyID int64
}

func (r *recorder) WriteHeader(code int) {
	if r.wrote {
		return
	}
	r.wrote, r.status = true, code
	r.ResponseWriter.WriteHeader(code)
}

func (r *recorder) Write(b []byte) (int, error) {
	if !r.wrote {
		r.WriteHeader(http.StatusOK)
	}
	n, err := r.ResponseWriter.Write(b)
	r.bytes += n
	return n, err
}

// Unwrap lets http.ResponseController reach the connection.
func (r *recorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

// bodiless keeps status and headers but drops the body and the headers
// that described it.
type bodiless struct{ w http.ResponseWriter }

func (b bodiless) Header() http.Header { return b.w.Header() }
func (b bodiless) Write(p []byte) (int, error) {
	return len(p), nil
}
func (b bodiless) WriteHeader(code int) {
	h := b.w.Header()
	h.Del("Content-Type")
	h.Del("X-Content-Type-Options")
	b.w.WriteHeader(code)
}

// NewHTTPServer returns an http.Server with the timeouts a public service needs.
func NewHTTPServer(addr string, h http.Handler) *http.Server {
	return &http.Server{
		Addr:              addr,
		Handler:           h,
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      60 * time.Second,
		IdleTimeout:       120 * time.Second,
		MaxHeaderBytes:    64 << 10,
	}
}
