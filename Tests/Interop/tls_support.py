"""Certificates for the HTTPS tests, made with `cryptography` (a dependency of firebase-admin): a
test CA, and leaf certificates it signs for `localhost` and 127.0.0.1."""

import datetime
import ipaddress
import os

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID


def _name(common_name):
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name)])


class CertificateAuthority:
    """A certificate authority whose certificate is written to `ca.pem` in `folder`."""

    def __init__(self, folder):
        self.folder = folder
        self.key = ec.generate_private_key(ec.SECP256R1())
        now = datetime.datetime.now(datetime.timezone.utc)
        self.certificate = (
            x509.CertificateBuilder().subject_name(_name("Hearth Test CA")).issuer_name(_name("Hearth Test CA"))
            .public_key(self.key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(days=1)).not_valid_after(now + datetime.timedelta(days=30))
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .sign(self.key, hashes.SHA256()))
        self.path = os.path.join(folder, "ca.pem")
        with open(self.path, "wb") as file:
            file.write(self.certificate.public_bytes(serialization.Encoding.PEM))

    def issue(self, name, valid_from=-1, valid_days=30, names=("localhost",), self_signed=False):
        """Writes `<name>.pem` and `<name>.key`; returns their paths. Validity is in days from now."""
        key = ec.generate_private_key(ec.SECP256R1())
        now = datetime.datetime.now(datetime.timezone.utc)
        issuer, signer = (_name(names[0]), key) if self_signed else (self.certificate.subject, self.key)
        certificate = (
            x509.CertificateBuilder().subject_name(_name(names[0])).issuer_name(issuer)
            .public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now + datetime.timedelta(days=valid_from))
            .not_valid_after(now + datetime.timedelta(days=valid_from + valid_days))
            .add_extension(x509.SubjectAlternativeName(
                [x509.DNSName(host) for host in names] + [x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
                critical=False)
            .sign(signer, hashes.SHA256()))
        certificate_path, key_path = os.path.join(self.folder, f"{name}.pem"), os.path.join(self.folder, f"{name}.key")
        with open(certificate_path, "wb") as file:
            file.write(certificate.public_bytes(serialization.Encoding.PEM))
        with open(key_path, "wb") as file:
            file.write(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                         serialization.NoEncryption()))
        return certificate_path, key_path, certificate.serial_number
