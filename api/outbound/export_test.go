package outbound

import "net/netip"

// DeniedPrefixes lists deniedRanges' prefixes, for the registry test to
// hold every one of them to an entry of its table.
func DeniedPrefixes() []netip.Prefix {
	out := make([]netip.Prefix, len(deniedRanges))
	for i, r := range deniedRanges {
		out[i] = r.prefix
	}
	return out
}

// DialCheck is the dialer's Control hook, as a connection to address
// (host:port) would call it.
func (c *Client) DialCheck(network, address string) error { return c.control(network, address, nil) }
