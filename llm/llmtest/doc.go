// Package llmtest is the conformance kit of wield's model providers.
package llmtest
