"""The call viewer (`peerlake view`): a static page set written from the lake, read-only.

- What it reads: the published marts, read-only (fct_llm_calls, fct_call_replays, fct_call_judgments,
  fct_call_system_runs: catalog.VIEWER_MARTS) and the blob store, by the keys the marts hold (a call's
  request as sent and response as received, a judged review's body). Nothing is written to the lake's
  data. An audit key (MART:KEY) is resolved by audit.trace, the resolution `peerlake audit` prints.
- What it writes: one HTML page, one CSS, one JS, and data files that are JavaScript calling
  `PL.put(name, data)`: loaded by <script> tags, so the page set opens from disk (file://) as well as
  over HTTP. The call index is cut into chunks of CHUNK calls, newest first; a filter scans them one
  at a time and keeps only the page it shows, so 100,000 calls are never in the browser at once.
  A call's, a review's, a system run's and an audit key's details are files of their own, written on
  demand by the local server or all at once by `--out`.
- Every text in the data is untrusted (manuscripts, model answers): the JSON is escaped so that no
  `</script>` or `<!--` inside it ends the script, and the page puts text in with textContent only.
"""
