# One image per server, built from this checkout's wheels and run as a user that owns nothing
# but its home:
#   docker build --build-arg SERVER=adopt-server -t mcp-tools/adopt-server .
#   docker run --rm -i -v /srv/adopt:/work mcp-tools/adopt-server --workspace-root /work
# SERVER is a folder under packages/ (uniqueness-server, context-server, adopt-server); EXTRAS
# optional parts of it, e.g. --build-arg EXTRAS=[postgres,excel] for uniqueness-server.
# tests/test_dockerfile.py checks this file's rules and runs its build commands in a shell.

FROM python:3.11-slim AS wheels
WORKDIR /src
COPY . /src
RUN python -m pip install --no-cache-dir uv==0.13.9 \
    && uv build --all-packages --wheel --out-dir /wheels

FROM python:3.11-slim
ARG SERVER=adopt-server
ARG EXTRAS=
# git: adopt-server clones and verifies repositories (the others read files only)
RUN apt-get update \
    && apt-get install -y --no-install-recommends git \
    && rm -rf /var/lib/apt/lists/*
COPY --from=wheels /wheels /wheels
RUN python -m venv /opt/mcp-tools \
    && /opt/mcp-tools/bin/pip install --no-cache-dir --find-links /wheels "mcp-tools-${SERVER}${EXTRAS}" \
    && rm -rf /wheels \
    && ln -s "/opt/mcp-tools/bin/${SERVER}" /usr/local/bin/mcp-server
RUN useradd --create-home --uid 10001 --shell /usr/sbin/nologin mcp
USER 10001:10001
WORKDIR /home/mcp
ENV PYTHONUNBUFFERED=1
ENTRYPOINT ["mcp-server"]
