package server_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stickhq/stick/internal/testproc"
)

// selfSigned writes a certificate for 127.0.0.1 and its key, and returns
// their files and a pool that trusts the certificate.
func selfSigned(t *testing.T) (cert, key string, pool *x509.CertPool) {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "stick hub"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &k.PublicKey, k)
	if err != nil {
		t.Fatal(err)
	}
	kb, err := x509.MarshalECPrivateKey(k)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cert, key = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := os.WriteFile(cert, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(key, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb}), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	pool = x509.NewCertPool()
	pool.AddCert(c)
	return cert, key, pool
}

// With a certificate and its key (flags or environment), the hub speaks
// HTTPS, and its public URL is https.
func TestTLS(t *testing.T) {
	t.Parallel()
	cert, key, pool := selfSigned(t)
	h := startHub(t, "", []string{"STICK_TLS_CERT=" + cert, "STICK_TLS_KEY=" + key})
	if !strings.HasPrefix(h.url, "https://") || h.public != h.url {
		t.Fatalf("listening on %s, public %s", h.url, h.public)
	}
	h.http = &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	h.loadOpenAPI()
	c := h.client("", "tls")
	if j := c.ok(post, "/api/v1/rooms", map[string]any{"name": "secure"}); str(j, "room_name") != "secure" {
		t.Fatalf("join over TLS: %v", j)
	}
	plain := strings.Replace(h.url, "https://", "http://", 1)
	if resp, err := http.Get(plain + "/healthz"); err == nil {
		resp.Body.Close()
		if resp.StatusCode == http.StatusOK {
			t.Fatal("the TLS hub answered plain HTTP")
		}
	}
}

// A certificate that cannot be loaded stops the start, naming the files.
func TestTLSBadFiles(t *testing.T) {
	t.Parallel()
	missing := filepath.Join(t.TempDir(), "missing.pem")
	p := testproc.StartEnv(t, []string{"TALKING_STICK_DATA_DIR=" + t.TempDir()}, "stick", "serve", "--addr", "127.0.0.1:0",
		"--tls-cert", missing, "--tls-key", missing)
	if code, err := p.Wait(); err != nil || code != 2 || !strings.Contains(p.Stderr(), "cannot load the TLS certificate "+missing) {
		t.Fatalf("exit %d %v:\n%s", code, err, p.Stderr())
	}
	p = testproc.StartEnv(t, []string{"TALKING_STICK_DATA_DIR=" + t.TempDir()}, "stick", "serve", "--addr", "127.0.0.1:0", "--tls-cert", missing)
	if code, err := p.Wait(); err != nil || code != 2 || !strings.Contains(p.Stderr(), "both a TLS certificate and its key") {
		t.Fatalf("exit %d %v:\n%s", code, err, p.Stderr())
	}
}
