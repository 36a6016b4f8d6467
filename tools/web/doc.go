// Package web holds wield's web tools: web_fetch reads a page as Markdown,
// text or HTML, and web_search finds pages through a [Searcher].
//
//	tools, err := web.New(web.Config{Searcher: &web.SearXNG{BaseURL: "http://localhost:8888"}})
//
// The tools are built with everything they need: the [Config] carries the
// dialer, the resolver, the searcher, the model that answers a fetch's
// prompt and the clock. Its zero value works: pages are fetched from the
// public internet only, and search falls back to DuckDuckGo's key-less
// HTML endpoint.
//
// # Reaching only the public internet
//
// Every connection web_fetch makes goes through a [net.Dialer] whose
// Control hook checks the address the socket is about to connect to, after
// name resolution. Loopback, private (RFC 1918), link-local (with the cloud
// metadata address 169.254.169.254), shared (CGNAT), unique-local IPv6,
// documentation, benchmarking, multicast and reserved ranges are refused,
// and IPv6 forms that carry an IPv4 address (mapped, compatible, NAT64,
// 6to4) are judged by that address. Because the check sits on the connect
// itself, a name that resolves to a public address when something checks
// it and to a private one when the connection is made (DNS rebinding)
// cannot pass. Host names that spell an IPv4 address in decimal, octal or
// hexadecimal ("2130706433", "0x7f.1") are read as that address, as
// browsers read them. Redirects are followed by hand, at most
// [MaxRedirects] hops, each hop connecting through the same hook; a
// redirect to another host is not followed but reported to the model,
// unless [Config.RedirectHosts] allows that host. Proxies from the
// environment are not used: a proxy would make the connection for us and
// defeat the check.
//
// The guard does not decide which public sites may be read; that is the
// permission policy's job, with rules such as web_fetch(domain:*.go.dev).
// Local addresses can be reached only through [Config.AllowAddrs].
//
// # Permissions
//
// Neither tool is annotated read-only: reading the web changes nothing
// locally, but the url or query itself carries data out of the machine,
// and web_fetch saves PDFs and other binary files into the workspace. So a
// policy asks before each call unless a rule allows it, and a headless run
// denies it unless a rule allows it; plan mode does not offer them.
//
// # Untrusted content
//
// What a page or a search result says is data, not instructions. Both
// tools wrap it in an <untrusted-web-content> element whose first line
// tells the model so, and a page cannot close the element early: the
// element's tags inside the content are defused.
package web
