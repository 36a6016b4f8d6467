package netguard

import (
	"net/netip"
	"strconv"
	"strings"
)

// HostAddr returns the address a URL's host names literally: an IPv6
// literal (with or without brackets), a dotted IPv4 literal, or one of
// the legacy IPv4 spellings browsers accept (decimal "2130706433",
// hexadecimal "0x7f000001", octal "0177.0.0.1", short "127.1"), with a
// trailing dot or not. It reports false for a name to resolve.
func HostAddr(host string) (netip.Addr, bool) {
	h := strings.TrimSuffix(strings.TrimPrefix(strings.TrimSuffix(host, "]"), "["), ".")
	if a, err := netip.ParseAddr(h); err == nil {
		return a, true
	}
	return parseLegacyIPv4(h)
}

// parseLegacyIPv4 reads an IPv4 address in the forms of inet_aton and the
// WHATWG URL standard: one to four parts separated by dots, each decimal,
// octal (leading 0) or hexadecimal (leading 0x), the last part filling the
// bytes that remain.
func parseLegacyIPv4(s string) (netip.Addr, bool) {
	parts := strings.Split(s, ".")
	if s == "" || len(parts) > 4 {
		return netip.Addr{}, false
	}
	var nums []uint64
	for _, p := range parts {
		n, ok := parseIPv4Part(p)
		if !ok {
			return netip.Addr{}, false
		}
		nums = append(nums, n)
	}
	last := nums[len(nums)-1]
	if last >= 1<<(8*(5-len(nums))) {
		return netip.Addr{}, false
	}
	var v uint32
	for i, n := range nums[:len(nums)-1] {
		if n > 255 {
			return netip.Addr{}, false
		}
		v |= uint32(n) << (24 - 8*i)
	}
	v |= uint32(last)
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}), true
}

func parseIPv4Part(p string) (uint64, bool) {
	base := 10
	switch {
	case len(p) >= 2 && (p[:2] == "0x" || p[:2] == "0X"):
		p, base = p[2:], 16
		if p == "" {
			return 0, true // "0x" is zero, as browsers read it
		}
	case len(p) > 1 && p[0] == '0':
		p, base = p[1:], 8
	}
	if p == "" || strings.ContainsAny(p, "+-_") {
		return 0, false
	}
	n, err := strconv.ParseUint(p, base, 32)
	return n, err == nil
}
