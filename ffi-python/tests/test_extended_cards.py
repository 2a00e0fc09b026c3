"""Extended cards per principal: alice and bob have cards of their own, carol gets the
default extended card, an anonymous caller gets an error; on the ready server (principals by
bearer token) and on the ASGI app (principals from an authenticate callback). Calls of the
three overlap and none ever gets another's card."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from hosts import base_card, mounted_card
from hosts import uvicorn_serving as serve

import a2a_wire as a
from a2a_wire.asgi import A2AApp
from a2a_wire.auth import ANONYMOUS, Request
from a2a_wire.client import Client
from a2a_wire.server import AgentServer, Events, RequestContext
from a2a_wire.signing import CardKeySet, SigningKey

TOKENS = {"tok-alice": "alice", "tok-bob": "bob", "tok-carol": "carol"}
KEY = SigningKey.from_jwk({
    "kty": "OKP", "crv": "Ed25519", "kid": "ext",
    "d": "nWGxne_9WmC6hEr0kuwsxERJxWl7MmkZcDusAxyuf2A", "x": "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo",
})


async def agent(ctx: RequestContext, events: Events) -> None:
    events.artifact(f"{ctx.principal}: {ctx.text}", artifact_id="echo", last_chunk=True)
    events.complete()


def cards(card: a.AgentCard) -> tuple[a.AgentCard, dict[str, a.AgentCard]]:
    """The public card's extended variants: the default one and alice's and bob's."""
    skill = a.AgentSkill(id="secret", name="secret", description="for one principal", tags=["x"])
    default = card.replace(name="extended for everyone")
    own = {p: card.replace(name=f"extended for {p}", skills=[skill.replace(id=f"{p}-skill")]) for p in ("alice", "bob")}
    return default, own


async def check_each_gets_its_own(url: str, expected: dict[str, str]) -> None:
    """Every principal's client asks for its extended card many times, interleaved."""
    clients = {p: await Client.connect(url, headers={"Authorization": f"Bearer {t}"}) for t, p in TOKENS.items()}
    try:
        async def ask(p: str) -> tuple[str, a.AgentCard]:
            return p, await clients[p].get_extended_agent_card()

        got = await asyncio.gather(*[ask(p) for _ in range(10) for p in clients])
        for p, card in got:
            assert card.name == expected[p], (p, card.name)
            if p in ("alice", "bob"):
                assert [s.id for s in card.skills] == [f"{p}-skill"]
            else:
                assert card.skills == ()
        for p, c in clients.items():
            t = await c.send_message("hi")
            assert isinstance(t, a.Task) and t.artifacts[0].parts[0].text == f"{p}: hi"
    finally:
        for c in clients.values():
            await c.aclose()


EXPECTED = {"alice": "extended for alice", "bob": "extended for bob", "carol": "extended for everyone"}


async def test_the_ready_server_serves_each_principal_its_card() -> None:
    card = base_card().replace(capabilities=a.AgentCapabilities(streaming=True, extended_agent_card=True))
    default, own = cards(card)
    async with AgentServer(agent, card=card, bearer_tokens=TOKENS, extended_card=default, extended_cards=own, signing_key=KEY) as s:
        await check_each_gets_its_own(s.url, EXPECTED)
        # Served like the public card: the standard interfaces, the bearer scheme, signed.
        async with await Client.connect(s.url, headers={"Authorization": "Bearer tok-bob"}) as bob:
            ext = await bob.get_extended_agent_card()
            assert ext.supported_interfaces == s.card.supported_interfaces
            assert "bearer" in ext.security_schemes
            assert CardKeySet([KEY]).verify_card(ext).kid == "ext"
        async with await Client.connect(s.url) as anonymous:
            with pytest.raises(a.UnauthenticatedError):
                await anonymous.get_extended_agent_card()


async def test_without_a_default_only_the_listed_principals_get_one() -> None:
    card = base_card().replace(capabilities=a.AgentCapabilities(streaming=True, extended_agent_card=True))
    _, own = cards(card)
    async with AgentServer(agent, card=card, bearer_tokens=TOKENS, extended_cards=own) as s:
        async with await Client.connect(s.url, headers={"Authorization": "Bearer tok-alice"}) as alice:
            assert (await alice.get_extended_agent_card()).name == "extended for alice"
        async with await Client.connect(s.url, headers={"Authorization": "Bearer tok-carol"}) as carol:
            with pytest.raises(a.ExtendedAgentCardNotConfiguredError):
                await carol.get_extended_agent_card()


async def test_bad_extended_cards_are_refused_naming_them() -> None:
    with pytest.raises(TypeError, match=r"extended_cards\.alice: expected AgentCard, got dict"):
        async with AgentServer(agent, card=base_card(), extended_cards={"alice": {"name": "x"}}):  # type: ignore[dict-item]
            pass
    with pytest.raises(a.ValidationError, match='"bob"'):
        async with AgentServer(agent, card=base_card(), extended_cards={"bob": base_card().replace(description="")}):
            pass


async def test_the_asgi_app_serves_each_principal_its_card() -> None:
    def app_for(base: str) -> Any:
        card = mounted_card(base).replace(capabilities=a.AgentCapabilities(streaming=True, extended_agent_card=True))
        default, own = cards(card)

        def judge(req: Request) -> str | None | object:
            auth = req.headers.get("authorization", "")
            if not auth:
                return ANONYMOUS  # allowed, without a principal (so no extended card)
            principal = TOKENS.get(auth.removeprefix("Bearer "))
            if principal is None:
                raise a.UnauthenticatedError("unknown token")
            return principal

        return A2AApp(agent, card, authenticate=judge, extended_card=default, extended_cards=own, signing_key=KEY)

    async with serve(app_for) as base:
        await check_each_gets_its_own(base, EXPECTED)
        async with await Client.connect(base, headers={"Authorization": "Bearer tok-alice"}) as alice:
            assert CardKeySet([KEY]).verify_card(await alice.get_extended_agent_card()).kid == "ext"
        async with await Client.connect(base) as anonymous:
            t = await anonymous.send_message("hi")
            assert isinstance(t, a.Task) and t.artifacts[0].parts[0].text == "None: hi"
            with pytest.raises(a.UnauthenticatedError):
                await anonymous.get_extended_agent_card()
