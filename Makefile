# make install [PREFIX=DIR]: see scripts/install (default PREFIX ~/.local).
PREFIX ?= $(HOME)/.local

.PHONY: build test install uninstall

build:
	swift build -c release

test:
	scripts/deps && swift test

install:
	scripts/install --prefix "$(PREFIX)"

uninstall:
	scripts/install --uninstall --prefix "$(PREFIX)"
