// Package outbound is the one way traineed reaches a URL a company gave it:
// webhook deliveries and their redeliveries, the test ping, and the
// deliveries of WEBHOOK automations. A company's key can make the server
// send requests, so every connection this package opens is checked where it
// is made: the dialer's Control hook looks at the resolved address of each
// connection and refuses loopback, private, link-local and the other
// internal ranges (Policy), unless the operator allowed them (--webhook-
// allow). A name that resolves, or re-resolves (DNS rebinding), to such an
// address is refused at connect time, not only when it is registered.
//
// It imports nothing of the module but api; the server (the test ping) and
// the background dispatcher both send through a *Client.
package outbound

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
)

// Policy decides which destinations a company's URL may reach. An address
// is judged in this order: the operator's Deny refuses it, else the
// operator's Allow lets it through, else it is refused when it is one of
// this server's own addresses (Self) or in a range that is not globally
// reachable (deniedRanges), else it is allowed.
type Policy struct {
	// Allow lists the internal ranges the operator opened (on-premise
	// receivers): an address in one of them is allowed whatever its kind.
	Allow []netip.Prefix
	// Deny lists ranges the operator closed although they are public
	// (a cloud's metadata or DNS addresses, the data centre's own
	// networks): it wins over Allow.
	Deny []netip.Prefix
	// RequireHTTPS refuses plain http:// URLs.
	RequireHTTPS bool
	// Self returns this server's own addresses (its interfaces'), which a
	// company's URL may not reach even when they are public: its database,
	// Redis or metrics port may listen on every interface. nil: none
	// (outbound.New sets the machine's).
	Self func() []netip.Addr
}

// Everywhere allows every address: for a client forwarding to its own
// user's receivers (traineectl events listen --forward-to), never for the
// server.
var Everywhere = []netip.Prefix{netip.MustParsePrefix("0.0.0.0/0"), netip.MustParsePrefix("::/0")}

// DeniedError is a destination the policy refuses: no connection is
// opened to it.
type DeniedError struct {
	Reason string // "loopback", "private", "userinfo", ...
	Addr   netip.Addr
}

func (e *DeniedError) Error() string {
	switch {
	case !e.Addr.IsValid():
		return "destination not allowed (" + e.Reason + ")"
	case strings.HasSuffix(e.Reason, " address"):
		return "destination not allowed (" + e.Reason + " " + e.Addr.String() + ")"
	}
	return "destination not allowed (" + e.Reason + " address " + e.Addr.String() + ")"
}

// IsDenied reports whether err is (or wraps) a refused destination.
func IsDenied(err error) bool {
	var d *DeniedError
	return errors.As(err, &d)
}

// deniedRanges are refused unless allowed, each with the reason named in
// errors; the first that holds an address names it, so a block of a
// larger one comes first. They are IANA's special-purpose registries
// (IPv4 and IPv6), every entry, those IANA calls globally reachable
// included: those are anycasts of protocols that are not HTTP, answered
// by the nearest instance (often the operator's own gateway or resolver),
// or identifiers that are not locators; no receiver lives there. The
// IPv6 forms that carry an IPv4 address (mapped ::ffff:0:0/96, translated
// ::ffff:0:0:0/96, compatible ::/96, NAT64 64:ff9b::/96, 6to4 2002::/16)
// are judged on that address (embeddedIPv4), and an IPv6 address outside
// the global unicast space (2000::/3) that none of them names is refused
// as reserved. registry_test.go holds every entry to a table of the
// registries.
var deniedRanges = []struct {
	prefix netip.Prefix
	reason string
}{
	{netip.MustParsePrefix("0.0.0.0/8"), "unspecified"},
	{netip.MustParsePrefix("10.0.0.0/8"), "private"},
	{netip.MustParsePrefix("100.64.0.0/10"), "carrier-grade NAT"},
	{netip.MustParsePrefix("127.0.0.0/8"), "loopback"},
	{netip.MustParsePrefix("169.254.0.0/16"), "link-local"},
	{netip.MustParsePrefix("172.16.0.0/12"), "private"},
	{netip.MustParsePrefix("192.0.0.9/32"), "PCP anycast"},
	{netip.MustParsePrefix("192.0.0.10/32"), "TURN anycast"},
	{netip.MustParsePrefix("192.0.0.0/24"), "IETF protocol assignments"}, // DS-Lite /29, dummy .8, NAT64 discovery .170 and .171
	{netip.MustParsePrefix("192.0.2.0/24"), "documentation"},
	{netip.MustParsePrefix("192.31.196.0/24"), "AS112 DNS anycast"},
	{netip.MustParsePrefix("192.52.193.0/24"), "AMT relay anycast"},
	{netip.MustParsePrefix("192.88.99.0/24"), "6to4 relay"},
	{netip.MustParsePrefix("192.168.0.0/16"), "private"},
	{netip.MustParsePrefix("192.175.48.0/24"), "AS112 DNS anycast"},
	{netip.MustParsePrefix("198.18.0.0/15"), "benchmarking"},
	{netip.MustParsePrefix("198.51.100.0/24"), "documentation"},
	{netip.MustParsePrefix("203.0.113.0/24"), "documentation"},
	{netip.MustParsePrefix("224.0.0.0/4"), "multicast"},
	{netip.MustParsePrefix("255.255.255.255/32"), "broadcast"},
	{netip.MustParsePrefix("240.0.0.0/4"), "reserved"},
	{netip.MustParsePrefix("::/128"), "unspecified"},
	{netip.MustParsePrefix("::1/128"), "loopback"},
	{netip.MustParsePrefix("64:ff9b:1::/48"), "local-use NAT64"},
	{netip.MustParsePrefix("100::/64"), "discard-only"},
	{netip.MustParsePrefix("100:0:0:1::/64"), "dummy IPv6 prefix"},
	{netip.MustParsePrefix("2001::/32"), "Teredo"}, // its IPv4 is obfuscated: refused whole
	{netip.MustParsePrefix("2001:1::1/128"), "PCP anycast"},
	{netip.MustParsePrefix("2001:1::2/128"), "TURN anycast"},
	{netip.MustParsePrefix("2001:1::3/128"), "DNS-SD SRP anycast"},
	{netip.MustParsePrefix("2001:2::/48"), "benchmarking"},
	{netip.MustParsePrefix("2001:3::/32"), "AMT relay anycast"},
	{netip.MustParsePrefix("2001:4:112::/48"), "AS112 DNS anycast"},
	{netip.MustParsePrefix("2001:10::/28"), "ORCHID"},
	{netip.MustParsePrefix("2001:20::/28"), "ORCHID"},
	{netip.MustParsePrefix("2001:30::/28"), "drone remote ID tags"},
	{netip.MustParsePrefix("2001::/23"), "IETF protocol assignments"},
	{netip.MustParsePrefix("2001:db8::/32"), "documentation"},
	{netip.MustParsePrefix("2620:4f:8000::/48"), "AS112 DNS anycast"},
	{netip.MustParsePrefix("3fff::/20"), "documentation"},
	{netip.MustParsePrefix("5f00::/16"), "segment routing SIDs"},
	{netip.MustParsePrefix("fc00::/7"), "private"},
	{netip.MustParsePrefix("fe80::/10"), "link-local"},
	{netip.MustParsePrefix("fec0::/10"), "site-local"},
	{netip.MustParsePrefix("ff00::/8"), "multicast"},
}

// globalUnicast is the only IPv6 space IANA allocates for unicast: an
// address outside it is reserved (or one of deniedRanges).
var globalUnicast = netip.MustParsePrefix("2000::/3")

// Check returns a *DeniedError when addr may not be reached, else nil.
func (p *Policy) Check(addr netip.Addr) error {
	addr = addr.WithZone("")
	v4, carries := embeddedIPv4(addr)
	// The deny list closes every form that carries its addresses; the
	// allow list opens what it names and its mapped spelling (which a
	// dual-stack socket dials as the IPv4 address), not the forms a
	// translator or a relay would carry elsewhere.
	in := func(list []netip.Prefix, everyForm bool) bool {
		for _, a := range list {
			if a.Contains(addr) || a.Contains(addr.Unmap()) || everyForm && carries && a.Contains(v4) {
				return true
			}
		}
		return false
	}
	switch {
	case in(p.Deny, true):
		return &DeniedError{Reason: "closed by the operator", Addr: addr}
	case in(p.Allow, false):
		return nil
	}
	if reason := deniedReason(addr); reason != "" {
		return &DeniedError{Reason: reason, Addr: addr}
	}
	if p.isSelf(addr) {
		return &DeniedError{Reason: "this server's own address", Addr: addr}
	}
	return nil
}

// isSelf reports whether addr is one of the server's own addresses.
func (p *Policy) isSelf(addr netip.Addr) bool {
	if p.Self == nil {
		return false
	}
	if v4, ok := embeddedIPv4(addr); ok {
		addr = v4
	}
	for _, a := range p.Self() {
		if a.Unmap() == addr {
			return true
		}
	}
	return false
}

// deniedReason names the internal range addr falls in, "" for a public
// address.
func deniedReason(addr netip.Addr) string {
	if v4, ok := embeddedIPv4(addr); ok {
		addr = v4
	}
	for _, r := range deniedRanges {
		if r.prefix.Contains(addr) {
			return r.reason
		}
	}
	if addr.Is6() && !globalUnicast.Contains(addr) {
		return "reserved"
	}
	return ""
}

// embeddedIPv4 returns the IPv4 address an IPv6 address stands for: mapped
// (::ffff:a.b.c.d, RFC 4291), translated (::ffff:0:a.b.c.d, RFC 2765's
// SIIT, which a stateless translator turns into a.b.c.d), compatible
// (::a.b.c.d), NAT64 (64:ff9b::a.b.c.d) or 6to4 (2002:aabb:ccdd::).
func embeddedIPv4(addr netip.Addr) (netip.Addr, bool) {
	if addr.Is4() {
		return addr, false
	}
	if addr.Is4In6() {
		return addr.Unmap(), true
	}
	b := addr.As16()
	zero12 := true
	for _, x := range b[:12] {
		if x != 0 {
			zero12 = false
			break
		}
	}
	switch {
	case zero12 && (b[12] != 0 || b[13] != 0 || b[14] != 0 || b[15] > 1): // not :: or ::1
		return netip.AddrFrom4([4]byte(b[12:16])), true
	case allZero(b[:8]) && b[8] == 0xff && b[9] == 0xff && b[10] == 0 && b[11] == 0: // translated
		return netip.AddrFrom4([4]byte(b[12:16])), true
	case b[0] == 0x00 && b[1] == 0x64 && b[2] == 0xff && b[3] == 0x9b && allZero(b[4:12]):
		return netip.AddrFrom4([4]byte(b[12:16])), true
	case b[0] == 0x20 && b[1] == 0x02:
		return netip.AddrFrom4([4]byte(b[2:6])), true
	}
	return addr, false
}

func allZero(b []byte) bool {
	for _, x := range b {
		if x != 0 {
			return false
		}
	}
	return true
}

// CheckURL is the check of registration: what can be refused before any
// connection. It refuses a URL with userinfo (user:pass@), a port outside
// 1-65535, a plain http URL under RequireHTTPS, the names localhost and
// *.localhost (unless the operator allowed loopback), and a literal
// address in a denied range, in every spelling a resolver might take for
// one (127.1, 2130706433, 0x7f.1, 0177.0.0.1, [::ffff:7f00:1]). Names
// are checked when a connection is made. The URL's syntax (http or https,
// a host) is api.ValidateURL's; a URL it refuses is refused here
// too.
func (p *Policy) CheckURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" {
		return &DeniedError{Reason: "not an http or https URL"}
	}
	if u.User != nil {
		return &DeniedError{Reason: "userinfo: credentials in the URL are not accepted; use a path token or verify the signature"}
	}
	if p.RequireHTTPS && u.Scheme != "https" {
		return &DeniedError{Reason: "plain http: this server requires https"}
	}
	if port := u.Port(); port != "" {
		n, err := strconv.Atoi(port)
		if err != nil || n < 1 || n > 65535 {
			return &DeniedError{Reason: "port " + port + " is outside 1-65535"}
		}
	} else if strings.HasSuffix(u.Host, ":") {
		return &DeniedError{Reason: "empty port"}
	}
	host := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
	for i := 0; i < len(host); i++ {
		if host[i] >= 0x80 {
			// HTTP clients map such a name to ASCII (fullwidth digits
			// included) before they resolve it: refuse it rather than
			// judge a name other than the one that would be used.
			return &DeniedError{Reason: "non-ASCII host name: register its ASCII (xn--) form"}
		}
	}
	if addr, ok := literalAddr(host); ok {
		return p.Check(addr)
	}
	if isLocalhost(host) {
		if p.allowsLoopback() {
			return nil
		}
		return &DeniedError{Reason: "loopback name " + host}
	}
	return nil
}

// isLocalhost reports whether host (lower-cased, without a trailing dot)
// is localhost or a name under it.
func isLocalhost(host string) bool {
	return host == "localhost" || strings.HasSuffix(host, ".localhost")
}

// allowsLoopback reports whether the operator opened a loopback address:
// then the name localhost may be registered (and is checked when it is
// resolved, as every name is).
func (p *Policy) allowsLoopback() bool {
	for _, a := range p.Allow {
		if a.Contains(netip.MustParseAddr("127.0.0.1")) || a.Contains(netip.IPv6Loopback()) {
			return true
		}
	}
	return false
}

// literalAddr reads host as an IP address, in the spellings of Go's parser
// and in the older ones of inet_aton (which some resolvers still apply to
// names): one to four parts, each decimal, octal (leading 0) or hex (0x).
func literalAddr(host string) (netip.Addr, bool) {
	if a, err := netip.ParseAddr(host); err == nil {
		return a.WithZone(""), true
	}
	if ip := net.ParseIP(host); ip != nil {
		a, ok := netip.AddrFromSlice(ip)
		return a, ok
	}
	return parseInetAton(host)
}

// parseInetAton parses a.b.c.d, a.b.c (c 16 bits), a.b (b 24 bits) and a
// (32 bits), each part decimal, octal or hex.
func parseInetAton(s string) (netip.Addr, bool) {
	parts := strings.Split(s, ".")
	if len(parts) > 4 || s == "" {
		return netip.Addr{}, false
	}
	vals := make([]uint64, len(parts))
	for i, p := range parts {
		if p == "" {
			return netip.Addr{}, false
		}
		base := 10
		switch {
		case strings.HasPrefix(p, "0x") || strings.HasPrefix(p, "0X"):
			base, p = 16, p[2:]
			if p == "" {
				p = "0"
			}
		case len(p) > 1 && p[0] == '0':
			base, p = 8, p[1:]
		}
		v, err := strconv.ParseUint(p, base, 32)
		if err != nil {
			return netip.Addr{}, false
		}
		vals[i] = v
	}
	var n uint64
	last := len(vals) - 1
	for i, v := range vals[:last] {
		if v > 255 {
			return netip.Addr{}, false
		}
		n |= v << (24 - 8*uint(i))
	}
	if vals[last] >= 1<<(32-8*uint(last)) {
		return netip.Addr{}, false
	}
	n |= vals[last]
	return netip.AddrFrom4([4]byte{byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n)}), true
}

// ParsePrefixes reads --webhook-allow and --webhook-deny: comma-separated
// CIDR prefixes (a bare address is its /32 or /128).
func ParsePrefixes(list string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, p := range strings.Split(list, ",") {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		if !strings.Contains(p, "/") {
			a, err := netip.ParseAddr(p)
			if err != nil {
				return nil, fmt.Errorf("%q is not a CIDR prefix or an address", p)
			}
			out = append(out, netip.PrefixFrom(a, a.BitLen()))
			continue
		}
		pr, err := netip.ParsePrefix(p)
		if err != nil {
			return nil, fmt.Errorf("%q is not a CIDR prefix (like 10.20.0.0/16)", p)
		}
		out = append(out, pr.Masked())
	}
	return out, nil
}
