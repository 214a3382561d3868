// Command image builds traineed's container image without a container
// engine: one layer (the static binary, a /data directory owned by the
// non-root user 65532, /etc/passwd and /etc/group naming it, a /tmp, and
// the CA certificates of the build machine, for the webhooks' https) on an
// empty base, with go-containerregistry as a library. It writes the image
// as a tarball that `docker load` and `podman load` read (-tar) and as an
// OCI image layout that skopeo, crane and registries' tools push (-oci).
// .ci/image builds the binary and runs it; docs/server.md, "Container
// image", says how to run the image.
//
// It is a module of its own (tools/image/go.mod): go-containerregistry
// and what it needs stay out of the main module, which builds the
// binaries. Its test builds traineed, an image of it, reads the image
// back and runs the binary of its layer.
package main

import (
	"archive/tar"
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"runtime"
	"strings"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// The image's fixed parts.
const (
	uid        = 65532 // the non-root user (distroless' "nonroot")
	listenPort = "8080/tcp"
	dataDir    = "/data"
)

// Options say what goes into the image.
type Options struct {
	Binary   []byte    // traineed, built for linux/Arch with CGO_ENABLED=0
	Arch     string    // GOARCH of Binary
	Certs    []byte    // a CA bundle for /etc/ssl/certs/ca-certificates.crt; nil for none
	Version  string    // org.opencontainers.image.version
	Revision string    // the commit: org.opencontainers.image.revision
	Created  time.Time // the image's and its files' time: the commit's, for a reproducible image
	Source   string    // org.opencontainers.image.source
}

// Config is the image's run configuration: the user, the entrypoint, the
// environment that makes traineed listen on every interface and keep its
// SQLite file in /data, the port and the labels.
func Config(o Options) v1.Config {
	return v1.Config{
		User:       fmt.Sprintf("%d:%d", uid, uid),
		Entrypoint: []string{"/traineed", "serve"},
		Env: []string{
			"TRAINEED_ADDR=0.0.0.0:8080",
			"TRAINEED_DB=sqlite:" + dataDir + "/traineed.db",
		},
		WorkingDir:   dataDir,
		ExposedPorts: map[string]struct{}{listenPort: {}},
		Volumes:      map[string]struct{}{dataDir: {}},
		Labels: map[string]string{
			"org.opencontainers.image.title":    "traineed",
			"org.opencontainers.image.version":  o.Version,
			"org.opencontainers.image.revision": o.Revision,
			"org.opencontainers.image.created":  o.Created.UTC().Format(time.RFC3339),
			"org.opencontainers.image.source":   o.Source,
		},
	}
}

// Build makes the image: an OCI manifest of one layer over an empty base.
func Build(o Options) (v1.Image, error) {
	files, err := layerTar(o)
	if err != nil {
		return nil, err
	}
	layer, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(files)), nil
	}, tarball.WithMediaType(types.OCILayer))
	if err != nil {
		return nil, err
	}
	img := mutate.MediaType(empty.Image, types.OCIManifestSchema1)
	img = mutate.ConfigMediaType(img, types.OCIConfigJSON)
	img, err = mutate.Append(img, mutate.Addendum{Layer: layer, History: v1.History{
		Created: v1.Time{Time: o.Created}, CreatedBy: "tools/image", Comment: "traineed " + o.Version,
	}})
	if err != nil {
		return nil, err
	}
	cf, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cf = cf.DeepCopy()
	cf.OS, cf.Architecture = "linux", o.Arch
	cf.Created = v1.Time{Time: o.Created}
	cf.Config = Config(o)
	return mutate.ConfigFile(img, cf)
}

// fileEntry is one file or directory of the layer.
type fileEntry struct {
	name     string
	mode     int64
	owner    int    // uid and gid
	contents []byte // nil: a directory
}

// layerTar is the layer's files, all owned by root but /data.
func layerTar(o Options) ([]byte, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	passwd := fmt.Sprintf("root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:%d:%d:nonroot:%s:/sbin/nologin\n", uid, uid, dataDir)
	group := fmt.Sprintf("root:x:0:\nnonroot:x:%d:\n", uid)
	entries := []fileEntry{{"etc/", 0o755, 0, nil}}
	if o.Certs != nil {
		entries = append(entries, fileEntry{"etc/ssl/", 0o755, 0, nil}, fileEntry{"etc/ssl/certs/", 0o755, 0, nil},
			fileEntry{"etc/ssl/certs/ca-certificates.crt", 0o644, 0, o.Certs})
	}
	entries = append(entries,
		fileEntry{"etc/passwd", 0o644, 0, []byte(passwd)},
		fileEntry{"etc/group", 0o644, 0, []byte(group)},
		fileEntry{"tmp/", 0o1777, 0, nil},
		fileEntry{strings.TrimPrefix(dataDir, "/") + "/", 0o700, uid, nil},
		fileEntry{"traineed", 0o755, 0, o.Binary},
	)
	for _, e := range entries {
		h := &tar.Header{Name: e.name, Mode: e.mode, Uid: e.owner, Gid: e.owner, ModTime: o.Created, Format: tar.FormatPAX}
		if e.contents == nil {
			h.Typeflag = tar.TypeDir
		} else {
			h.Typeflag, h.Size = tar.TypeReg, int64(len(e.contents))
		}
		if err := tw.WriteHeader(h); err != nil {
			return nil, err
		}
		if _, err := tw.Write(e.contents); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// badTagChars are what a tag may not hold ([A-Za-z0-9_.-] only).
var badTagChars = regexp.MustCompile(`[^A-Za-z0-9_.-]`)

// DefaultTag is the image's name in the tarball and the layout:
// traineed:VERSION, the version's other characters as "-".
func DefaultTag(version string) string {
	return "traineed:" + badTagChars.ReplaceAllString(version, "-")
}

func main() {
	var o Options
	var binary, certs, created, tarPath, ociPath, tag string
	flag.StringVar(&binary, "binary", "", "traineed, built for linux with CGO_ENABLED=0 (required)")
	flag.StringVar(&o.Arch, "arch", runtime.GOARCH, "the binary's GOARCH")
	flag.StringVar(&certs, "certs", "/etc/ssl/certs/ca-certificates.crt", "the CA bundle to copy into the image; empty for none")
	flag.StringVar(&o.Version, "version", "dev", "the version: label and default tag")
	flag.StringVar(&o.Revision, "revision", "", "the commit built")
	flag.StringVar(&created, "created", "", "RFC 3339 time of the image and its files (default: now)")
	flag.StringVar(&o.Source, "source", "https://github.com/traineed/traineed", "the source repository's URL")
	flag.StringVar(&tarPath, "tar", "", "write a tarball for docker load / podman load here")
	flag.StringVar(&ociPath, "oci", "", "write an OCI image layout into this directory")
	flag.StringVar(&tag, "tag", "", "the image's name in the tarball and the layout (default traineed:VERSION)")
	flag.Parse()
	if err := run(o, binary, certs, created, tarPath, ociPath, tag); err != nil {
		fmt.Fprintln(os.Stderr, "image:", err)
		os.Exit(1)
	}
}

func run(o Options, binary, certs, created, tarPath, ociPath, tag string) error {
	if binary == "" || tarPath == "" && ociPath == "" {
		return fmt.Errorf("-binary and at least one of -tar and -oci are required")
	}
	var err error
	if o.Binary, err = os.ReadFile(binary); err != nil {
		return err
	}
	if certs != "" {
		if o.Certs, err = os.ReadFile(certs); err != nil {
			return err
		}
	}
	o.Created = time.Now().UTC().Truncate(time.Second)
	if created != "" {
		if o.Created, err = time.Parse(time.RFC3339, created); err != nil {
			return err
		}
	}
	if tag == "" {
		tag = DefaultTag(o.Version)
	}
	img, err := Build(o)
	if err != nil {
		return err
	}
	return write(img, tag, tarPath, ociPath)
}
