"""Gunicorn's settings, one file for every way the web process runs: `make dev`, the containers, the upload
bench and the tests that send real bodies with curl (``gunicorn -c config/gunicorn.py --bind HOST:PORT``).

Uploads rely on what gunicorn does with a request body: it de-chunks a chunked body and says so with
``wsgi.input_terminated`` (``evidence/http.py`` reads such a body to its end), it raises when a chunked body is
cut off before its last chunk, and it hands the client socket over as ``gunicorn.socket`` (the upload's idle
timeout). A server without these gets 411 for chunked bodies, never an empty file.
"""

# Threads, not processes, carry concurrent requests: an upload spends its time waiting on the network.
worker_class = "gthread"
workers = 2
threads = 8
# How long a worker may go without telling the arbiter it is alive; a long upload is fine (gthread's main
# loop keeps reporting while a thread reads the body).
timeout = 120
# Requests in flight finish on SIGTERM within this many seconds.
graceful_timeout = 30
# Gunicorn's runtime control socket lives at one fixed path per user: two consoles (or a console and the tests)
# on one machine would take it from each other. Nothing here uses it.
control_socket_disable = True
