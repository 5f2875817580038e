"""Test doubles: loopback servers that stand in for a provider's network edge in the tests and benchmarks.

They never ship in the product wheel. `FakeLlmServer` speaks the OpenAI and Anthropic chat, batch and
prompt-cache protocols and enforces each model family's documented request rules, so the gateway's hosted
request shapes are tested against the rules rather than against whatever a stub accepts.
"""
