package storetest

import (
	"net/netip"

	"github.com/traineed/traineed/api/outbound"
)

// Loopback is what the tests allow, as an operator would with
// --webhook-allow 127.0.0.0/8: their receivers listen on 127.0.0.1.
var Loopback = []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}

// LoopbackOutbound is the outbound client of tests whose receivers are
// their own, on loopback: the default policy with 127.0.0.0/8 allowed.
func LoopbackOutbound() *outbound.Client {
	return outbound.New(outbound.Config{Policy: outbound.Policy{Allow: Loopback}})
}
