#!/usr/bin/env python3
"""A `memdag --llm-cmd` program: the prompt on stdin, an OpenAI-compatible model's answer on stdout.

    MEMDAG_LLM_MODEL=gpt-4o-mini OPENAI_API_KEY=... \
        memdag --store DIR ingest turns.jsonl --extract --llm-cmd scripts/llm-openai.py

Environment: MEMDAG_LLM_MODEL (required), MEMDAG_LLM_BASE_URL (default https://api.openai.com/v1;
any OpenAI-compatible server: vLLM, llama.cpp's server, Ollama's /v1, LM Studio), OPENAI_API_KEY
(sent as a bearer token when set). When the prompt carries memdag's answer schema (the line after
"The answer's JSON Schema:", as extraction prompts do) the request asks for strict structured
outputs on it; other prompts (compaction) get plain text. Exits non-zero with the reason on
stderr when the request fails, which memdag reports (and, when extracting, learns that batch by
its rules). Needs only Python 3's standard library.
"""
import json
import os
import sys
import urllib.request

prompt = sys.stdin.read()
model = os.environ.get("MEMDAG_LLM_MODEL")
if not model:
    sys.exit("llm-openai.py: set MEMDAG_LLM_MODEL")
base = os.environ.get("MEMDAG_LLM_BASE_URL", "https://api.openai.com/v1").rstrip("/")
body = {"model": model, "temperature": 0, "messages": [{"role": "user", "content": prompt}]}
lines = prompt.split("\n")
if "The answer's JSON Schema:" in lines:
    schema = json.loads(lines[lines.index("The answer's JSON Schema:") + 1])
    body["response_format"] = {"type": "json_schema",
                               "json_schema": {"name": "memdag_facts", "strict": True, "schema": schema}}
headers = {"content-type": "application/json"}
if os.environ.get("OPENAI_API_KEY"):
    headers["authorization"] = "Bearer " + os.environ["OPENAI_API_KEY"]
request = urllib.request.Request(base + "/chat/completions", json.dumps(body).encode(), headers)
try:
    with urllib.request.urlopen(request, timeout=120) as r:
        answer = json.load(r)
except Exception as e:  # HTTP errors, timeouts, a body that is no JSON
    detail = e.read().decode(errors="replace")[:300] if hasattr(e, "read") else ""
    sys.exit(f"llm-openai.py: {base}/chat/completions: {e} {detail}".strip())
try:
    print(answer["choices"][0]["message"]["content"])
except (KeyError, IndexError, TypeError):
    sys.exit(f"llm-openai.py: no message content in {json.dumps(answer)[:300]}")
