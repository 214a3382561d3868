package main

import (
	"archive/tar"
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

const (
	testVersion  = "v9.8.7-test"
	testRevision = "0123456789abcdef0123456789abcdef01234567"
	testCreated  = "2026-11-28T22:00:00Z"
)

// buildTraineed builds traineed as .ci/image does: static, for linux on
// this machine's architecture, stamped; without -trimpath, so that the
// build cache of the main module's tests serves most of it.
func buildTraineed(t *testing.T) []byte {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("the image's binary runs on linux only")
	}
	bin := filepath.Join(t.TempDir(), "traineed")
	const pkg = "github.com/traineed/traineed/cmd/internal/buildinfo"
	cmd := exec.Command("go", "build", "-ldflags",
		"-s -w -X "+pkg+".version="+testVersion+" -X "+pkg+".commit="+testRevision+" -X "+pkg+".date="+testCreated,
		"-o", bin, "./cmd/traineed")
	cmd.Dir = "../.."
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH="+runtime.GOARCH)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	b, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The image written as a tarball and as an OCI layout reads back as the
// same image: an OCI manifest of one layer, whose config runs traineed
// serve as user 65532 on 0.0.0.0:8080 with its database in /data, and
// whose layer's binary runs and answers /healthz.
func TestImage(t *testing.T) {
	certs := []byte("-----BEGIN CERTIFICATE-----\ntest\n-----END CERTIFICATE-----\n")
	created, _ := time.Parse(time.RFC3339, testCreated)
	img, err := Build(Options{Binary: buildTraineed(t), Arch: runtime.GOARCH, Certs: certs, Version: testVersion,
		Revision: testRevision, Created: created, Source: "https://github.com/traineed/traineed"})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	tag := DefaultTag(testVersion)
	if err := write(img, tag, filepath.Join(dir, "image.tar"), filepath.Join(dir, "oci")); err != nil {
		t.Fatal(err)
	}
	fromTar, fromLayout := readBack(t, dir, tag)
	// The layout keeps the manifest; the tarball keeps the config and
	// the layer (docker's manifest.json, from which a manifest is made).
	want, _ := img.Digest()
	if got, _ := fromLayout.Digest(); got != want {
		t.Fatalf("the layout's image is %s, the built one %s", got, want)
	}
	c1, _ := fromTar.ConfigName()
	c2, _ := img.ConfigName()
	l1, _ := fromTar.Layers()
	l2, _ := img.Layers()
	if c1 != c2 || len(l1) != 1 || len(l2) != 1 || digest(t, l1[0]) != digest(t, l2[0]) {
		t.Fatalf("the tarball's config %s and layers %v, the built %s and %v", c1, l1, c2, l2)
	}
	checkManifest(t, fromLayout)
	checkConfig(t, fromTar)
	files := layerFiles(t, fromTar)
	checkFiles(t, files, certs)
	runBinary(t, files["traineed"].contents)
}

func digest(t *testing.T, l v1.Layer) v1.Hash {
	t.Helper()
	d, err := l.Digest()
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// readBack reads the image from the tarball (by its tag) and from the OCI
// layout (its index's one manifest, named by the tag).
func readBack(t *testing.T, dir, tag string) (v1.Image, v1.Image) {
	t.Helper()
	ref, err := name.NewTag(tag)
	if err != nil {
		t.Fatal(err)
	}
	fromTar, err := tarball.ImageFromPath(filepath.Join(dir, "image.tar"), &ref)
	if err != nil {
		t.Fatal(err)
	}
	idx, err := layout.ImageIndexFromPath(filepath.Join(dir, "oci"))
	if err != nil {
		t.Fatal(err)
	}
	im, err := idx.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	if len(im.Manifests) != 1 || im.Manifests[0].Annotations["org.opencontainers.image.ref.name"] != ref.TagStr() {
		t.Fatalf("the layout's index: %+v", im.Manifests)
	}
	fromLayout, err := idx.Image(im.Manifests[0].Digest)
	if err != nil {
		t.Fatal(err)
	}
	return fromTar, fromLayout
}

func checkManifest(t *testing.T, img v1.Image) {
	t.Helper()
	m, err := img.Manifest()
	if err != nil {
		t.Fatal(err)
	}
	if m.MediaType != types.OCIManifestSchema1 || m.Config.MediaType != types.OCIConfigJSON ||
		len(m.Layers) != 1 || m.Layers[0].MediaType != types.OCILayer {
		t.Errorf("manifest: %s, config %s, layers %+v", m.MediaType, m.Config.MediaType, m.Layers)
	}
}

func checkConfig(t *testing.T, img v1.Image) {
	t.Helper()
	cf, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	c := cf.Config
	if cf.OS != "linux" || cf.Architecture != runtime.GOARCH || !cf.Created.Time.Equal(time.Date(2026, 11, 28, 22, 0, 0, 0, time.UTC)) {
		t.Errorf("platform %s/%s, created %s", cf.OS, cf.Architecture, cf.Created.Time)
	}
	if c.User != "65532:65532" || !slices.Equal(c.Entrypoint, []string{"/traineed", "serve"}) || len(c.Cmd) != 0 {
		t.Errorf("user %q, entrypoint %q, cmd %q", c.User, c.Entrypoint, c.Cmd)
	}
	if !slices.Contains(c.Env, "TRAINEED_ADDR=0.0.0.0:8080") || !slices.Contains(c.Env, "TRAINEED_DB=sqlite:/data/traineed.db") {
		t.Errorf("env %q", c.Env)
	}
	if _, ok := c.ExposedPorts["8080/tcp"]; !ok || len(c.ExposedPorts) != 1 {
		t.Errorf("exposed ports %v", c.ExposedPorts)
	}
	if _, ok := c.Volumes["/data"]; !ok || c.WorkingDir != "/data" {
		t.Errorf("volumes %v, working directory %q", c.Volumes, c.WorkingDir)
	}
	for k, want := range map[string]string{
		"org.opencontainers.image.version":  testVersion,
		"org.opencontainers.image.revision": testRevision,
		"org.opencontainers.image.created":  testCreated,
		"org.opencontainers.image.source":   "https://github.com/traineed/traineed",
	} {
		if c.Labels[k] != want {
			t.Errorf("label %s = %q, want %q", k, c.Labels[k], want)
		}
	}
}

// layerFiles reads the image's one layer, uncompressed, by name.
func layerFiles(t *testing.T, img v1.Image) map[string]fileEntry {
	t.Helper()
	layers, err := img.Layers()
	if err != nil || len(layers) != 1 {
		t.Fatalf("layers: %d, %v", len(layers), err)
	}
	rc, err := layers[0].Uncompressed()
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	files := map[string]fileEntry{}
	tr := tar.NewReader(rc)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if h.Uid != h.Gid || !h.ModTime.Equal(time.Date(2026, 11, 28, 22, 0, 0, 0, time.UTC)) {
			t.Errorf("%s: uid %d gid %d, time %s", h.Name, h.Uid, h.Gid, h.ModTime)
		}
		e := fileEntry{name: h.Name, mode: h.Mode, owner: h.Uid}
		if h.Typeflag == tar.TypeReg {
			if e.contents, err = io.ReadAll(tr); err != nil {
				t.Fatal(err)
			}
		}
		files[h.Name] = e
	}
	return files
}

func checkFiles(t *testing.T, files map[string]fileEntry, certs []byte) {
	t.Helper()
	want := map[string]fileEntry{ // contents checked below
		"traineed": {mode: 0o755}, "data/": {mode: 0o700, owner: 65532}, "tmp/": {mode: 0o1777},
		"etc/passwd": {mode: 0o644}, "etc/group": {mode: 0o644}, "etc/ssl/certs/ca-certificates.crt": {mode: 0o644},
	}
	for n, w := range want {
		if f, ok := files[n]; !ok || f.mode != w.mode || f.owner != w.owner {
			t.Errorf("%s: %+v, want mode %o owner %d", n, ok, w.mode, w.owner)
		}
	}
	if !bytes.Equal(files["etc/ssl/certs/ca-certificates.crt"].contents, certs) {
		t.Error("the CA bundle is not the one given")
	}
	if !strings.Contains(string(files["etc/passwd"].contents), "nonroot:x:65532:65532:") {
		t.Errorf("passwd: %q", files["etc/passwd"].contents)
	}
}

// runBinary runs the layer's traineed: --version says the label's
// version, and serve, with the image's environment but a free port on
// the loopback and a temporary directory for /data, answers /healthz.
func runBinary(t *testing.T, binary []byte) {
	t.Helper()
	dir := t.TempDir()
	bin := filepath.Join(dir, "traineed")
	if err := os.WriteFile(bin, binary, 0o755); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(bin, "--version").CombinedOutput()
	if want := "traineed version " + testVersion + " (commit " + testRevision + ", built " + testCreated + ")\n"; err != nil || string(out) != want {
		t.Errorf("--version: %v %q, want %q", err, out, want)
	}
	data := filepath.Join(dir, "data")
	if err := os.Mkdir(data, 0o700); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "serve")
	cmd.Dir = data
	cmd.Env = []string{"TRAINEED_ADDR=127.0.0.1:0", "TRAINEED_DB=sqlite:" + filepath.Join(data, "traineed.db"), "TRAINEED_SHUTDOWN_DELAY=0s"}
	base := startServe(t, cmd)
	resp, err := http.Get(base + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("/healthz: %d %s", resp.StatusCode, body)
	}
	if _, err := os.Stat(filepath.Join(data, "traineed.db")); err != nil {
		t.Errorf("the database is not in the data directory: %v", err)
	}
}

// startServe starts cmd and returns its base URL, read from its
// "listening" log line.
func startServe(t *testing.T, cmd *exec.Cmd) string {
	t.Helper()
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	addr := make(chan string, 1)
	var logs strings.Builder
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			logs.WriteString(sc.Text() + "\n")
			var m map[string]any
			if json.Unmarshal(sc.Bytes(), &m) == nil && m["msg"] == "listening" {
				select {
				case addr <- m["addr"].(string): // the first; the rest are drained
				default:
				}
			}
		}
		close(addr)
	}()
	a, ok := <-addr
	if !ok {
		t.Fatalf("serve ended without listening:\n%s", logs.String())
	}
	return "http://" + a
}
