"""What the issuer publishes and signs besides certificates: its keys (the key file's, and every key the
database recorded, for did.json and jwks.json), the Bitstring Status Lists and their signed credentials.

Issuing and revoking run inside a write transaction that is not this service's: they hand in their session, and
this service does its part there (records the signing key, opens a list and draws an index, flips a bit and
re-signs the list), so that a certificate and its status entry commit together or not at all.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, bindparam, select
from sqlalchemy.orm import Session

from app.certificates import credential as documents
from app.certificates.credential import Issuer
from app.certificates.encoding import public_key_from_multibase
from app.certificates.errors import StatusListNotFoundError
from app.certificates.keys import KeyRing, PublicKey, SigningKey
from app.certificates.models import Certificate, CertificateKey, StatusList
from app.certificates.signing import add_proof
from app.certificates.statuslist import FILL_LIMIT, LIST_SIZE, empty_bits, free_index, with_bit
from app.conflict import insert_or_ignore
from app.db import Database

_UPSERT_KEY = insert_or_ignore(CertificateKey, index_elements=[CertificateKey.id])
_INDEX_TAKEN = select(Certificate.id).where(
    Certificate.status_list == bindparam("number"), Certificate.status_index == bindparam("index")
)
_PUBLIC_KEY = select(CertificateKey.public_key).where(CertificateKey.id == bindparam("id"))


@dataclass(eq=False)
class PublishingService:
    database: Database
    keys: KeyRing
    issuer: Issuer
    clock: Callable[[], datetime]
    key_file: Path | None = None

    # --- keys ------------------------------------------------------------------------------------------------

    def register_key(self, session: Session, key: SigningKey, now: datetime) -> None:
        """Record the key in the database (once), so that it stays published after the key file moves on."""
        session.execute(
            _UPSERT_KEY.on(session).values(id=key.thumbprint, public_key=key.public.multibase, created_at=now)
        )

    def public_key(self, connection: Connection, thumbprint: str) -> PublicKey | None:
        """The key a thumbprint names: the key file's, else one the database recorded."""
        known = self.keys.public_keys().get(thumbprint)
        if known is not None:
            return known
        stored = connection.execute(_PUBLIC_KEY, {"id": thumbprint}).scalar()
        return PublicKey(public_key_from_multibase(stored)) if stored is not None else None

    async def public_keys(self) -> list[PublicKey]:
        """Every key ever used here: the key file's, and those the database recorded (oldest first)."""

        def work(session: Session) -> list[str]:
            return list(session.scalars(select(CertificateKey.public_key).order_by(CertificateKey.created_at)))

        recorded = [PublicKey(public_key_from_multibase(item)) for item in await self.database.run(work)]
        keys = {key.thumbprint: key for key in recorded}
        for thumbprint, key in self.keys.public_keys().items():
            keys.setdefault(thumbprint, key)
        return list(keys.values())

    async def did_document(self) -> dict[str, Any]:
        return documents.did_document(self.issuer, await self.public_keys())

    async def jwks(self) -> dict[str, Any]:
        return documents.jwk_set(self.issuer, await self.public_keys())

    def profile(self) -> dict[str, Any]:
        return {"@context": [documents.VC_CONTEXT, documents.OB_CONTEXT], **self.issuer.profile()}

    def rotate_keys(self) -> SigningKey:
        """Append a new signing key to the key file; certificates signed before keep verifying."""
        if self.key_file is None:
            raise RuntimeError("no key file to rotate")
        self.keys = self.keys.rotated(self.key_file)
        now = self.clock().replace(microsecond=0)
        self.database.transaction(lambda session: self.register_key(session, self.keys.active, now), write=True)
        return self.keys.active

    # --- status lists ----------------------------------------------------------------------------------------

    async def status_list(self, number: int | str) -> bytes:
        """The signed status list credential as stored (a number that is not one is simply not found)."""
        text = str(number)
        if not (text.isascii() and text.isdigit() and len(text) <= 9):
            raise StatusListNotFoundError(text)

        def work(session: Session) -> str | None:
            return session.scalar(select(StatusList.credential).where(StatusList.number == int(text)))

        stored = await self.database.run(work)
        if stored is None:
            raise StatusListNotFoundError(number)
        return stored.encode("utf-8")

    def entry(self, session: Session, now: datetime) -> tuple[StatusList, int]:
        """A free entry for a new certificate: the list that takes new certificates (locked), or a new one when
        the last is half full, and a random free index in it. The caller counts it allocated."""
        status_list = self._open_list(session, now)

        def is_taken(index: int) -> bool:
            return session.scalar(_INDEX_TAKEN, {"number": status_list.number, "index": index}) is not None

        return status_list, free_index(is_taken, status_list.size)

    def set_bit(self, session: Session, number: int, index: int, now: datetime) -> None:
        """Mark an entry revoked: the list row locked, the bit set and the list credential re-signed, in the
        caller's transaction."""
        status_list = session.scalars(select(StatusList).where(StatusList.number == number).with_for_update()).one()
        status_list.bits = with_bit(status_list.bits, index)
        status_list.credential = self._signed_list(status_list.number, status_list.bits, now)
        status_list.updated_at = now

    def _open_list(self, session: Session, now: datetime) -> StatusList:
        latest = session.scalars(
            select(StatusList).order_by(StatusList.number.desc()).limit(1).with_for_update()
        ).first()
        if latest is not None and latest.allocated < FILL_LIMIT:
            return latest
        number = (latest.number + 1) if latest is not None else 1
        bits = empty_bits(LIST_SIZE)
        created = StatusList(
            number=number,
            size=LIST_SIZE,
            allocated=0,
            bits=bits,
            credential=self._signed_list(number, bits, now),
            updated_at=now,
        )
        session.add(created)
        session.flush()  # a parallel creation of the same number fails here (IntegrityError: retried)
        return created

    def _signed_list(self, number: int, bits: bytes, now: datetime) -> str:
        key = self.keys.active
        unsigned = documents.status_list_credential(self.issuer, number, bits, now)
        signed = add_proof(unsigned, key.private, self.issuer.method_id(key.thumbprint), documents.timestamp(now))
        return json.dumps(signed, ensure_ascii=False, indent=2) + "\n"
