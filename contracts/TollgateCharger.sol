// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

/// The part of ERC-20 the charger uses.
interface IERC20Charged {
    function allowance(address owner, address spender) external view returns (uint256);
    function balanceOf(address owner) external view returns (uint256);
    function transferFrom(address from, address to, uint256 value) external returns (bool);
}

/// ERC-1271: a contract wallet says whether a signature over a hash is its own.
interface IERC1271 {
    function isValidSignature(bytes32 hash, bytes calldata signature) external view returns (bytes4);
}

/// Charges a subscription period by period from a payer's EIP-712 signed mandate.
///
/// A mandate names the payer, the token, the payee and the amount per period; period `i` begins at
/// `start + i * periodSeconds` and `i` runs from 0 to `periods - 1`. Anyone may call `charge` (the caller pays the
/// gas); each period of a mandate moves exactly `amount` of `token` from `payer` to `payee`, at most once, never
/// before that period begins, and never once the payer has revoked the mandate. The contract holds no funds: it
/// only calls `transferFrom` on the payer's allowance to it.
///
/// Smart-wallet payers sign through ERC-1271, which needs the wallet deployed by the first charge; a counterfactual
/// (ERC-6492) signature is checked off chain, and its wallet deployed, before the mandate is used here.
contract TollgateCharger {
    struct Mandate {
        address payer;
        address token;
        address payee;
        uint256 amount;
        uint256 periodSeconds;
        uint256 start;
        uint256 periods;
        bytes32 salt;
    }

    bytes32 public constant MANDATE_TYPEHASH =
        keccak256(
            "Mandate(address payer,address token,address payee,uint256 amount,uint256 periodSeconds,uint256 start,uint256 periods,bytes32 salt)"
        );
    bytes32 private constant DOMAIN_TYPEHASH =
        keccak256("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)");
    bytes32 private constant NAME_HASH = keccak256("Tollgate Charger");
    bytes32 private constant VERSION_HASH = keccak256("1");
    bytes4 private constant ERC1271_MAGIC = 0x1626ba7e;
    /// secp256k1n / 2: a signature with a larger `s` is the malleable twin of a valid one.
    uint256 private constant MAX_S = 0x7FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF5D576E7357A4501DDFE92F46681B20A0;

    /// charged[mandateHash][periodIndex]: that period has been paid.
    mapping(bytes32 => mapping(uint256 => bool)) public charged;
    /// revoked[payer][mandateHash]: the payer withdrew that mandate. Keyed by whoever revoked, so only a mandate's
    /// own payer can revoke it.
    mapping(address => mapping(bytes32 => bool)) public revoked;

    event Charged(
        bytes32 indexed mandateHash,
        uint256 indexed periodIndex,
        address indexed payer,
        address payee,
        uint256 amount
    );
    event Revoked(bytes32 indexed mandateHash, address indexed payer);

    error InvalidMandate();
    error MandateEnded(uint256 periods);
    error PeriodNotStarted(uint256 startsAt);
    error MandateRevoked();
    error AlreadyCharged();
    error BadSignature();
    error InsufficientAllowance(uint256 allowance, uint256 amount);
    error InsufficientBalance(uint256 balance, uint256 amount);
    error TransferFailed();

    /// Moves period `periodIndex`'s amount from the mandate's payer to the mandate's payee.
    function charge(Mandate calldata mandate, bytes calldata signature, uint256 periodIndex) external {
        if (mandate.periodSeconds == 0 || mandate.token.code.length == 0) revert InvalidMandate();
        if (periodIndex >= mandate.periods) revert MandateEnded(mandate.periods);
        uint256 startsAt = mandate.start + periodIndex * mandate.periodSeconds;
        if (block.timestamp < startsAt) revert PeriodNotStarted(startsAt);

        bytes32 digest = hashMandate(mandate);
        if (revoked[mandate.payer][digest]) revert MandateRevoked();
        if (charged[digest][periodIndex]) revert AlreadyCharged();
        if (!_signedBy(mandate.payer, digest, signature)) revert BadSignature();

        // Read first so that a charge that would fail says why (the token's own reason is not standard).
        IERC20Charged token = IERC20Charged(mandate.token);
        uint256 allowed = token.allowance(mandate.payer, address(this));
        if (allowed < mandate.amount) revert InsufficientAllowance(allowed, mandate.amount);
        uint256 balance = token.balanceOf(mandate.payer);
        if (balance < mandate.amount) revert InsufficientBalance(balance, mandate.amount);

        // Marked before the transfer: a token that calls back into `charge` finds this period already paid.
        charged[digest][periodIndex] = true;
        emit Charged(digest, periodIndex, mandate.payer, mandate.payee, mandate.amount);
        _transferFrom(mandate.token, mandate.payer, mandate.payee, mandate.amount);
    }

    /// Withdraws the sender's mandate with this hash: no period of it can be charged from now on.
    function revoke(bytes32 mandateHash) external {
        revoked[msg.sender][mandateHash] = true;
        emit Revoked(mandateHash, msg.sender);
    }

    /// The EIP-712 digest the payer signs; it also names the mandate in `charged`, `revoked` and the events.
    function hashMandate(Mandate calldata mandate) public view returns (bytes32) {
        bytes32 structHash = keccak256(
            abi.encode(
                MANDATE_TYPEHASH,
                mandate.payer,
                mandate.token,
                mandate.payee,
                mandate.amount,
                mandate.periodSeconds,
                mandate.start,
                mandate.periods,
                mandate.salt
            )
        );
        return keccak256(abi.encodePacked("\x19\x01", domainSeparator(), structHash));
    }

    /// Computed on each call, so a signature for one chain never verifies on another after a fork.
    function domainSeparator() public view returns (bytes32) {
        return keccak256(abi.encode(DOMAIN_TYPEHASH, NAME_HASH, VERSION_HASH, block.chainid, address(this)));
    }

    /// An ECDSA signature of the payer's key, or else the payer contract's ERC-1271 approval.
    function _signedBy(address payer, bytes32 digest, bytes calldata signature) private view returns (bool) {
        if (payer == address(0)) return false;
        if (signature.length == 65) {
            bytes32 r = bytes32(signature[0:32]);
            uint256 s = uint256(bytes32(signature[32:64]));
            uint8 v = uint8(signature[64]);
            if (v < 27) v += 27;
            if (s <= MAX_S && (v == 27 || v == 28)) {
                // ecrecover answers address(0) for a signature of nobody, which the check above keeps from matching.
                if (ecrecover(digest, v, r, bytes32(s)) == payer) return true;
            }
        }
        if (payer.code.length == 0) return false;
        (bool ok, bytes memory answer) = payer.staticcall(
            abi.encodeCall(IERC1271.isValidSignature, (digest, signature))
        );
        return ok && answer.length >= 32 && abi.decode(answer, (bytes32)) == bytes32(ERC1271_MAGIC);
    }

    /// `transferFrom` that accepts tokens returning nothing, and refuses a `false` answer or a revert.
    function _transferFrom(address token, address from, address to, uint256 amount) private {
        (bool ok, bytes memory answer) = token.call(abi.encodeCall(IERC20Charged.transferFrom, (from, to, amount)));
        if (!ok) revert TransferFailed();
        if (answer.length != 0 && (answer.length < 32 || abi.decode(answer, (uint256)) != 1)) revert TransferFailed();
    }
}
