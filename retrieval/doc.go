// Package retrieval indexes a workspace's documents (Markdown, text,
// HTML and PDF) and finds the passages that answer a query, with their
// source path and line or page range for citations.
package retrieval
