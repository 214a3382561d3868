package outbound_test

import (
	"errors"
	"net/netip"
	"testing"

	"github.com/traineed/traineed/api/outbound"
)

// registry is every entry of IANA's IPv4 and IPv6 Special-Purpose Address
// Registries (iana-ipv4-special-registry, iana-ipv6-special-registry), the
// multicast blocks of the address spaces, the IPv4-translated prefix of
// SIIT (RFC 2765), the deprecated site-local block, and the IPv6 space
// outside 2000::/3 that IANA keeps reserved, each with an address in it and
// the policy's verdict: the reason it is refused, or "" (allowed).
//
// The verdict is the policy's own, not IANA's "Globally Reachable": every
// entry is refused, those IANA marks globally reachable (global: true)
// included, for the reason given in why. They are anycast addresses of
// protocols that are not HTTP (PCP, TURN, DNS-SD SRP, AS112's DNS sinks,
// AMT relays), which the nearest instance answers, and the nearest is
// often the operator's own gateway or resolver (a PCP anycast is the
// local NAT box by design, and anyone may run an AS112 node inside their
// network); or identifiers that are not locators (ORCHIDv2, DETs). No
// company's receiver lives there, and a request to one may land inside.
// The forms that carry an IPv4 address (mapped, translated, compatible,
// NAT64's well-known prefix, 6to4) are judged on that address: refused
// with its reason when it is internal, allowed when it is public.
var registry = []struct {
	entry  string // the registry's block
	name   string // the registry's name, and its RFC
	global bool   // IANA's "Globally Reachable" (N/A is false)
	addr   string // an address in the block
	want   string // the reason it is refused; "" allowed
	why    string // why refused although IANA calls it globally reachable
}{
	// IPv4 (iana-ipv4-special-registry, and the multicast space).
	{entry: "0.0.0.0/8", name: `"This network" (RFC 791)`, addr: "0.1.2.3", want: "unspecified"},
	{entry: "0.0.0.0/32", name: `"This host on this network" (RFC 1122)`, addr: "0.0.0.0", want: "unspecified"},
	{entry: "10.0.0.0/8", name: "Private-Use (RFC 1918)", addr: "10.20.30.40", want: "private"},
	{entry: "100.64.0.0/10", name: "Shared Address Space (RFC 6598)", addr: "100.100.100.200", want: "carrier-grade NAT"},
	{entry: "127.0.0.0/8", name: "Loopback (RFC 1122)", addr: "127.255.0.1", want: "loopback"},
	{entry: "169.254.0.0/16", name: "Link Local (RFC 3927)", addr: "169.254.169.254", want: "link-local"},
	{entry: "172.16.0.0/12", name: "Private-Use (RFC 1918)", addr: "172.31.0.2", want: "private"},
	{entry: "192.0.0.0/24", name: "IETF Protocol Assignments (RFC 6890)", addr: "192.0.0.100", want: "IETF protocol assignments"},
	{entry: "192.0.0.0/29", name: "IPv4 Service Continuity Prefix (RFC 7335)", addr: "192.0.0.2", want: "IETF protocol assignments"},
	{entry: "192.0.0.8/32", name: "IPv4 dummy address (RFC 7600)", addr: "192.0.0.8", want: "IETF protocol assignments"},
	{entry: "192.0.0.9/32", name: "Port Control Protocol Anycast (RFC 7723)", global: true, addr: "192.0.0.9", want: "PCP anycast",
		why: "answered by the nearest PCP server: the operator's own NAT gateway"},
	{entry: "192.0.0.10/32", name: "Traversal Using Relays around NAT Anycast (RFC 8155)", global: true, addr: "192.0.0.10", want: "TURN anycast",
		why: "answered by the nearest TURN server, which may be the operator's"},
	{entry: "192.0.0.170/32", name: "NAT64/DNS64 Discovery (RFC 8880)", addr: "192.0.0.170", want: "IETF protocol assignments"},
	{entry: "192.0.0.171/32", name: "NAT64/DNS64 Discovery (RFC 8880)", addr: "192.0.0.171", want: "IETF protocol assignments"},
	{entry: "192.0.2.0/24", name: "Documentation TEST-NET-1 (RFC 5737)", addr: "192.0.2.1", want: "documentation"},
	{entry: "192.31.196.0/24", name: "AS112-v4 (RFC 7535)", global: true, addr: "192.31.196.1", want: "AS112 DNS anycast",
		why: "a DNS sink anyone may run inside their own network"},
	{entry: "192.52.193.0/24", name: "AMT (RFC 7450)", global: true, addr: "192.52.193.1", want: "AMT relay anycast",
		why: "multicast tunnelling relays, answered by the nearest (often the access network's)"},
	{entry: "192.88.99.0/24", name: "Deprecated 6to4 Relay Anycast (RFC 7526)", addr: "192.88.99.1", want: "6to4 relay"},
	{entry: "192.168.0.0/16", name: "Private-Use (RFC 1918)", addr: "192.168.1.1", want: "private"},
	{entry: "192.175.48.0/24", name: "Direct Delegation AS112 Service (RFC 7534)", global: true, addr: "192.175.48.6", want: "AS112 DNS anycast",
		why: "a DNS sink anyone may run inside their own network"},
	{entry: "198.18.0.0/15", name: "Benchmarking (RFC 2544)", addr: "198.19.255.1", want: "benchmarking"},
	{entry: "198.51.100.0/24", name: "Documentation TEST-NET-2 (RFC 5737)", addr: "198.51.100.7", want: "documentation"},
	{entry: "203.0.113.0/24", name: "Documentation TEST-NET-3 (RFC 5737)", addr: "203.0.113.9", want: "documentation"},
	{entry: "224.0.0.0/4", name: "Multicast (RFC 5771)", addr: "239.255.255.250", want: "multicast"},
	{entry: "240.0.0.0/4", name: "Reserved (RFC 1112)", addr: "250.1.2.3", want: "reserved"},
	{entry: "255.255.255.255/32", name: "Limited Broadcast (RFC 8190, RFC 919)", addr: "255.255.255.255", want: "broadcast"},

	// IPv6 (iana-ipv6-special-registry, and the address space).
	{entry: "::1/128", name: "Loopback Address (RFC 4291)", addr: "::1", want: "loopback"},
	{entry: "::/128", name: "Unspecified Address (RFC 4291)", addr: "::", want: "unspecified"},
	{entry: "::ffff:0:0/96", name: "IPv4-mapped Address (RFC 4291), judged on its IPv4", addr: "::ffff:10.0.0.1", want: "private"},
	{entry: "::ffff:0:0/96", name: "IPv4-mapped Address, a public IPv4", addr: "::ffff:8.8.8.8"},
	{entry: "::ffff:0:0:0/96", name: "IPv4-translated Address (RFC 2765 SIIT), judged on its IPv4", addr: "::ffff:0:7f00:1", want: "loopback"},
	{entry: "::ffff:0:0:0/96", name: "IPv4-translated Address, the metadata service", addr: "::ffff:0:a9fe:a9fe", want: "link-local"},
	{entry: "::ffff:0:0:0/96", name: "IPv4-translated Address, a public IPv4", addr: "::ffff:0:808:808"},
	{entry: "::/96", name: "IPv4-compatible Address (RFC 4291, deprecated), judged on its IPv4", addr: "::192.168.0.1", want: "private"},
	{entry: "64:ff9b::/96", name: "IPv4-IPv6 Translat. (RFC 6052), judged on its IPv4", global: true, addr: "64:ff9b::127.0.0.1", want: "loopback",
		why: "its IPv4 is internal"},
	{entry: "64:ff9b::/96", name: "IPv4-IPv6 Translat., a public IPv4", global: true, addr: "64:ff9b::8.8.8.8"},
	{entry: "64:ff9b:1::/48", name: "IPv4-IPv6 Translat. local-use (RFC 8215)", addr: "64:ff9b:1::8.8.8.8", want: "local-use NAT64"},
	{entry: "100::/64", name: "Discard-Only Address Block (RFC 6666)", addr: "100::1", want: "discard-only"},
	{entry: "100:0:0:1::/64", name: "Dummy IPv6 Prefix (RFC 9780)", addr: "100:0:0:1::1", want: "dummy IPv6 prefix"},
	{entry: "2001::/23", name: "IETF Protocol Assignments (RFC 2928)", addr: "2001:1ff::1", want: "IETF protocol assignments"},
	{entry: "2001::/32", name: "TEREDO (RFC 4380, RFC 8190)", addr: "2001:0:4136:e378:8000:63bf:3fff:fdd2", want: "Teredo"},
	{entry: "2001:1::1/128", name: "Port Control Protocol Anycast (RFC 7723)", global: true, addr: "2001:1::1", want: "PCP anycast",
		why: "answered by the nearest PCP server: the operator's own NAT gateway"},
	{entry: "2001:1::2/128", name: "Traversal Using Relays around NAT Anycast (RFC 8155)", global: true, addr: "2001:1::2", want: "TURN anycast",
		why: "answered by the nearest TURN server, which may be the operator's"},
	{entry: "2001:1::3/128", name: "DNS-SD Service Registration Protocol Anycast (RFC 9665)", global: true, addr: "2001:1::3", want: "DNS-SD SRP anycast",
		why: "a service registration server of the local network"},
	{entry: "2001:2::/48", name: "Benchmarking (RFC 5180)", addr: "2001:2::beef", want: "benchmarking"},
	{entry: "2001:3::/32", name: "AMT (RFC 7450)", global: true, addr: "2001:3::1", want: "AMT relay anycast",
		why: "multicast tunnelling relays, answered by the nearest (often the access network's)"},
	{entry: "2001:4:112::/48", name: "AS112-v6 (RFC 7535)", global: true, addr: "2001:4:112::1", want: "AS112 DNS anycast",
		why: "a DNS sink anyone may run inside their own network"},
	{entry: "2001:10::/28", name: "Deprecated ORCHID (RFC 4843)", addr: "2001:10::1", want: "ORCHID"},
	{entry: "2001:20::/28", name: "ORCHIDv2 (RFC 7343)", global: true, addr: "2001:2f::1", want: "ORCHID",
		why: "cryptographic host identifiers, not locators: no web server has one"},
	{entry: "2001:30::/28", name: "Drone Remote ID Protocol Entity Tags (DETs) Prefix (RFC 9374)", global: true, addr: "2001:30::1", want: "drone remote ID tags",
		why: "identifiers of drones, not locators: no web server has one"},
	{entry: "2001:db8::/32", name: "Documentation (RFC 3849)", addr: "2001:db8::1", want: "documentation"},
	{entry: "2002::/16", name: "6to4 (RFC 3056), judged on its IPv4", addr: "2002:a9fe:a9fe::1", want: "link-local"},
	{entry: "2002::/16", name: "6to4, a public IPv4", addr: "2002:808:808::1"},
	{entry: "2620:4f:8000::/48", name: "Direct Delegation AS112 Service (RFC 7534)", global: true, addr: "2620:4f:8000::42", want: "AS112 DNS anycast",
		why: "a DNS sink anyone may run inside their own network"},
	{entry: "3fff::/20", name: "Documentation (RFC 9637)", addr: "3fff:fff::1", want: "documentation"},
	{entry: "5f00::/16", name: "Segment Routing (SRv6) SIDs (RFC 9602)", addr: "5f00:1::1", want: "segment routing SIDs"},
	{entry: "fc00::/7", name: "Unique-Local (RFC 4193, RFC 8190)", addr: "fd12:3456::1", want: "private"},
	{entry: "fe80::/10", name: "Link-Local Unicast (RFC 4291)", addr: "fe80::1", want: "link-local"},
	{entry: "fec0::/10", name: "Site-Local (RFC 3879, deprecated; address space)", addr: "fec0::1", want: "site-local"},
	{entry: "ff00::/8", name: "Multicast (RFC 4291)", addr: "ff02::1", want: "multicast"},
	{entry: "::/8", name: "Reserved by IETF (address space): not an IPv4 form", addr: "::1:0:0:1", want: "reserved"},
	{entry: "4000::/3", name: "Reserved by IETF (address space)", addr: "4000::1", want: "reserved"},
	{entry: "e000::/4", name: "Reserved by IETF (address space)", addr: "e000::1", want: "reserved"},

	// Public controls next to the blocks: allowed.
	{entry: "8.8.8.0/24", name: "public IPv4", addr: "8.8.8.8"},
	{entry: "172.32.0.0/11", name: "public, just past 172.16/12", addr: "172.32.0.1"},
	{entry: "192.0.1.0/24", name: "public, just past 192.0.0.0/24", addr: "192.0.1.1"},
	{entry: "2001:200::/23", name: "public, just past 2001::/23 (APNIC)", addr: "2001:200::1"},
	{entry: "2606:4700::/32", name: "public IPv6", addr: "2606:4700::1111"},
	{entry: "2620:4f:8001::/48", name: "public, just past 2620:4f:8000::/48", addr: "2620:4f:8001::1"},
}

// carriesIPv4 are the blocks whose addresses are judged on the IPv4
// address they carry: their edges are not the block's verdict.
var carriesIPv4 = map[string]bool{"::ffff:0:0/96": true, "::ffff:0:0:0/96": true, "::/96": true, "64:ff9b::/96": true, "2002::/16": true}

// Every special-purpose block is judged as the table says, the same at
// registration (a literal in a URL) and at connect time (Check, which the
// dialer's hook calls): an address in it, its first and its last address.
// Every range the policy denies is an entry of the table, so none is left
// to chance.
func TestSpecialPurposeRegistry(t *testing.T) {
	var p outbound.Policy
	entries := map[netip.Prefix]bool{}
	for _, r := range registry {
		pfx := netip.MustParsePrefix(r.entry)
		addr := netip.MustParseAddr(r.addr)
		entries[pfx] = true
		if !pfx.Contains(addr) {
			t.Errorf("%s: %s is not in it", r.entry, r.addr)
			continue
		}
		if r.global && r.want != "" && r.why == "" {
			t.Errorf("%s (%s): refused although globally reachable, without a reason why", r.entry, r.name)
		}
		host := r.addr
		if addr.Is6() {
			host = "[" + host + "]"
		}
		for what, err := range map[string]error{"Check": p.Check(addr), "CheckURL": p.CheckURL("https://" + host + ":8443/hook")} {
			var d *outbound.DeniedError
			switch {
			case r.want == "" && err != nil:
				t.Errorf("%s %s (%s): %v; want allowed", what, r.addr, r.name, err)
			case r.want != "" && (!errors.As(err, &d) || d.Reason != r.want):
				t.Errorf("%s %s (%s): %v; want refused as %q", what, r.addr, r.name, err, r.want)
			}
		}
		if r.want == "" || carriesIPv4[r.entry] {
			continue
		}
		for _, edge := range []netip.Addr{pfx.Masked().Addr(), lastAddr(pfx)} {
			if err := p.Check(edge); !outbound.IsDenied(err) {
				t.Errorf("%s (%s): its edge %s is allowed: %v", r.entry, r.name, edge, err)
			}
		}
	}
	for _, d := range outbound.DeniedPrefixes() {
		if !entries[d] {
			t.Errorf("the policy denies %s, which no entry of the registry table names", d)
		}
	}
}

// lastAddr is the last address of pfx.
func lastAddr(pfx netip.Prefix) netip.Addr {
	b := pfx.Masked().Addr().AsSlice()
	for i := pfx.Bits(); i < len(b)*8; i++ {
		b[i/8] |= 1 << (7 - i%8)
	}
	a, _ := netip.AddrFromSlice(b)
	return a
}
