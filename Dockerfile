# The damone binary in a small image (for deploy/kubernetes). Build:
#   docker build -t damone:latest .
# Stage 1 builds with the Rust toolchain; stage 2 keeps only the binary.
FROM rust:1.95-slim-bookworm AS build
WORKDIR /src
COPY Cargo.toml Cargo.lock ./
COPY src src
COPY configs configs
COPY examples examples
RUN cargo build --release --locked --bin damone

FROM debian:bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends ca-certificates \
    && rm -rf /var/lib/apt/lists/*
COPY --from=build /src/target/release/damone /usr/local/bin/damone
COPY configs /etc/damone/configs
USER 65534:65534
ENTRYPOINT ["damone"]
CMD ["--help"]
