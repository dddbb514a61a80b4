"""Verifiable certificates: Open Badges 3.0 credentials signed with eddsa-jcs-2022 and as a JWS, their keys,
the revocation status list, and the printable PDF with its QR code."""
