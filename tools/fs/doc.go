// Package fs provides wield's file tools: read_file, read_many_files,
// write_file, replace, list_directory, glob and search_file_content.
package fs
