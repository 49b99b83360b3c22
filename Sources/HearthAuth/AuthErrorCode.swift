import Foundation

/// Firebase Auth's error codes, under the Firebase Apple SDK's names and raw values:
/// `AuthErrorCode(rawValue: error._code)` reads the code of an error HearthAuth threw (an
/// ``AuthError``), and `switch` over it takes Firebase's cases.
public enum AuthErrorCode: Int, Error, CustomNSError, Sendable {
    case invalidCustomToken = 17000
    case customTokenMismatch = 17002
    case invalidCredential = 17004
    case userDisabled = 17005
    case operationNotAllowed = 17006
    case emailAlreadyInUse = 17007
    case invalidEmail = 17008
    case wrongPassword = 17009
    case tooManyRequests = 17010
    case userNotFound = 17011
    case accountExistsWithDifferentCredential = 17012
    case requiresRecentLogin = 17014
    case providerAlreadyLinked = 17015
    case noSuchProvider = 17016
    case invalidUserToken = 17017
    case networkError = 17020
    case userTokenExpired = 17021
    case invalidAPIKey = 17023
    case userMismatch = 17024
    case credentialAlreadyInUse = 17025
    case weakPassword = 17026
    case appNotAuthorized = 17028
    case expiredActionCode = 17029
    case invalidActionCode = 17030
    case invalidMessagePayload = 17031
    case invalidSender = 17032
    case invalidRecipientEmail = 17033
    case missingEmail = 17034
    case missingIosBundleID = 17036
    case missingAndroidPackageName = 17037
    case unauthorizedDomain = 17038
    case invalidContinueURI = 17039
    case missingContinueURI = 17040
    case missingPhoneNumber = 17041
    case invalidPhoneNumber = 17042
    case missingVerificationCode = 17043
    case invalidVerificationCode = 17044
    case missingVerificationID = 17045
    case invalidVerificationID = 17046
    case missingAppCredential = 17047
    case invalidAppCredential = 17048
    case sessionExpired = 17051
    case quotaExceeded = 17052
    case missingAppToken = 17053
    case notificationNotForwarded = 17054
    case appNotVerified = 17055
    case captchaCheckFailed = 17056
    case webContextAlreadyPresented = 17057
    case webContextCancelled = 17058
    case appVerificationUserInteractionFailure = 17059
    case invalidClientID = 17060
    case webNetworkRequestFailed = 17061
    case webInternalError = 17062
    case webSignInUserInteractionFailure = 17063
    case localPlayerNotAuthenticated = 17066
    case nullUser = 17067
    case invalidProviderID = 17071
    case tenantIDMismatch = 17072
    case unsupportedTenantOperation = 17073
    case invalidHostingLinkDomain = 17214
    case rejectedCredential = 17075
    case gameKitNotLinked = 17076
    case secondFactorRequired = 17078
    case missingMultiFactorSession = 17081
    case missingMultiFactorInfo = 17082
    case invalidMultiFactorSession = 17083
    case multiFactorInfoNotFound = 17084
    case adminRestrictedOperation = 17085
    case unverifiedEmail = 17086
    case secondFactorAlreadyEnrolled = 17087
    case maximumSecondFactorCountExceeded = 17088
    case unsupportedFirstFactor = 17089
    case emailChangeNeedsVerification = 17090
    case missingClientIdentifier = 17093
    case missingOrInvalidNonce = 17094
    case blockingCloudFunctionError = 17105
    case recaptchaNotEnabled = 17200
    case missingRecaptchaToken = 17201
    case invalidRecaptchaToken = 17202
    case invalidRecaptchaAction = 17203
    case missingClientType = 17204
    case missingRecaptchaVersion = 17205
    case invalidRecaptchaVersion = 17206
    case invalidReqType = 17207
    case recaptchaSDKNotLinked = 17208
    case recaptchaSiteKeyMissing = 17209
    case recaptchaActionCreationFailed = 17210
    case passwordDoesNotMeetRequirements = 17211
    case keychainError = 17995
    case internalError = 17999
    case malformedJWT = 18000

    /// The older name of this type, from the SDKs where codes were `AuthErrorCode.Code`: code
    /// written as `AuthErrorCode.Code(rawValue: error._code)` compiles unchanged.
    public typealias Code = AuthErrorCode

    /// The code itself, as Firebase keeps it for code written against older SDKs.
    public var code: AuthErrorCode { self }

    public static var errorDomain: String { "FIRAuthErrorDomain" }
    public var errorCode: Int { rawValue }
    public var errorUserInfo: [String: Any] { [NSLocalizedDescriptionKey: message] }

    /// The code of a caught error, as `AuthErrorCode(rawValue: error._code)` reads it (a Hearth
    /// convenience).
    public init?(_ error: any Error) {
        self.init(rawValue: (error as NSError).code)
    }

    /// Firebase's message for the code.
    public var message: String {
        switch self {
        case .invalidCustomToken: "The custom token format is incorrect. Please check the documentation."
        case .customTokenMismatch: "The custom token corresponds to a different audience."
        case .invalidCredential: "The supplied auth credential is malformed or has expired."
        case .userDisabled: "The user account has been disabled by an administrator."
        case .operationNotAllowed:
            "The given sign-in provider is disabled for this Firebase project. Enable it in the Firebase console, under the sign-in method tab of the Auth section."
        case .emailAlreadyInUse: "The email address is already in use by another account."
        case .invalidEmail: "The email address is badly formatted."
        case .wrongPassword: "The password is invalid or the user does not have a password."
        case .tooManyRequests: "We have blocked all requests from this device due to unusual activity. Try again later."
        case .userNotFound: "There is no user record corresponding to this identifier. The user may have been deleted."
        case .accountExistsWithDifferentCredential:
            "An account already exists with the same email address but different sign-in credentials. Sign in using a provider associated with this email address."
        case .requiresRecentLogin:
            "This operation is sensitive and requires recent authentication. Log in again before retrying this request."
        case .providerAlreadyLinked:
            "[ERROR_PROVIDER_ALREADY_LINKED] - User can only be linked to one identity for the given provider."
        case .noSuchProvider: "User was not linked to an account with the given provider."
        case .invalidUserToken:
            "This user's credential isn't valid for this project. This can happen if the user's token has been tampered with, or if the user doesn’t belong to the project associated with the API key used in your request."
        case .networkError: "Network error (such as timeout, interrupted connection or unreachable host) has occurred."
        case .userTokenExpired: "The user's credential is no longer valid. The user must sign in again."
        case .invalidAPIKey: "An invalid API Key was supplied in the request."
        case .userMismatch: "The supplied credentials do not correspond to the previously signed in user."
        case .credentialAlreadyInUse: "This credential is already associated with a different user account."
        case .weakPassword: "The password must be 6 characters long or more."
        case .appNotAuthorized:
            "This app is not authorized to use Firebase Authentication with the provided API key. Review your key configuration in the Google API console and ensure that it accepts requests from your app's bundle ID."
        case .expiredActionCode: "The action code has expired."
        case .invalidActionCode:
            "The action code is invalid. This can happen if the code is malformed, expired, or has already been used."
        case .invalidMessagePayload:
            "The action code is invalid. This can happen if the code is malformed, expired, or has already been used."
        case .invalidSender:
            "The email template corresponding to this action contains invalid characters in its message. Please fix by going to the Auth email templates section in the Firebase Console."
        case .invalidRecipientEmail:
            "The action code is invalid. This can happen if the code is malformed, expired, or has already been used."
        case .missingEmail: "An email address must be provided."
        case .missingIosBundleID: "An iOS Bundle ID must be provided if an App Store ID is provided."
        case .missingAndroidPackageName:
            "An Android Package Name must be provided if the Android App is required to be installed."
        case .unauthorizedDomain:
            "The domain of the continue URL is not allowlisted. Please allowlist the domain in the Firebase console."
        case .invalidContinueURI: "The continue URL provided in the request is invalid."
        case .missingContinueURI: "A continue URL must be provided in the request."
        case .missingPhoneNumber: "To send verification codes, provide a phone number for the recipient."
        case .invalidPhoneNumber:
            "The format of the phone number provided is incorrect. Please enter the phone number in a format that can be parsed into E.164 format. E.164 phone numbers are written in the format [+][country code][subscriber number including area code]."
        case .missingVerificationCode: "The phone auth credential was created with an empty SMS verification Code."
        case .invalidVerificationCode:
            "The multifactor verification code used to create the auth credential is invalid. Re-collect the verification code and be sure to use the verification code provided by the user."
        case .missingVerificationID: "The phone auth credential was created with an empty verification ID."
        case .invalidVerificationID: "The verification ID used to create the phone auth credential is invalid."
        case .missingAppCredential:
            "The phone verification request is missing an APNs Device token. Firebase Auth automatically detects APNs Device Tokens, however, if method swizzling is disabled, the APNs token must be set via the APNSToken property on FIRAuth or by calling setAPNSToken:type on FIRAuth."
        case .invalidAppCredential:
            "The APNs device token provided is either incorrect or does not match the private certificate uploaded to the Firebase Console."
        case .sessionExpired: "The SMS code has expired. Please re-send the verification code to try again."
        case .quotaExceeded: "The quota for this operation has been exceeded."
        case .missingAppToken:
            "There seems to be a problem with your project's Firebase phone number authentication set-up, please make sure to follow the instructions found at https://firebase.google.com/docs/auth/ios/phone-auth"
        case .notificationNotForwarded:
            "If app delegate swizzling is disabled, remote notifications received by UIApplicationDelegate need tobe forwarded to FirebaseAuth's canHandleNotification method."
        case .appNotVerified:
            "Firebase could not retrieve the silent push notification and therefore could not verify your app. Ensure that you configured your app correctly to receive push notifications."
        case .captchaCheckFailed: "The reCAPTCHA response token provided is either invalid, expired or already"
        case .webContextAlreadyPresented: "User interaction is still ongoing, another view cannot be presented."
        case .webContextCancelled: "The interaction was cancelled by the user."
        case .appVerificationUserInteractionFailure:
            "The app verification process has failed, print and inspect the error details for more information"
        case .invalidClientID: "The OAuth client ID provided is either invalid or does not match the specified API key."
        case .webNetworkRequestFailed:
            "A network error (such as timeout, interrupted connection, or unreachable host) has occurred within the web context."
        case .webInternalError: "An internal error has occurred within the SFSafariViewController or WKWebView."
        case .webSignInUserInteractionFailure:
            "The app verification process has failed, print and inspect the error details for more information"
        case .localPlayerNotAuthenticated: "The local player is not authenticated. Please log the local player in to Game Center."
        case .nullUser: "A null user object was provided as the argument for an operation which requires a non-null user object."
        case .invalidProviderID: "The provider ID provided for the attempted web operation is invalid."
        case .tenantIDMismatch: "The provided user's tenant ID does not match the Auth instance's tenant ID."
        case .unsupportedTenantOperation: "This operation is not supported in a multi-tenant context."
        case .invalidHostingLinkDomain:
            "The provided hosting link domain is not configured in Firebase Hosting or is not owned by the current project."
        case .rejectedCredential: "The request contains malformed or mismatching credentials."
        case .gameKitNotLinked: "The GameKit framework is not linked. Please turn on the Game Center capability."
        case .secondFactorRequired: "Please complete a second factor challenge to finish signing into this account."
        case .missingMultiFactorSession: "The request is missing proof of first factor successful sign-in."
        case .missingMultiFactorInfo: "No second factor identifier is provided."
        case .invalidMultiFactorSession: "The request does not contain a valid proof of first factor successful sign-in."
        case .multiFactorInfoNotFound: "The user does not have a second factor matching the identifier provided."
        case .adminRestrictedOperation: "This operation is restricted to administrators only."
        case .unverifiedEmail: "The operation requires a verified email."
        case .secondFactorAlreadyEnrolled: "The second factor is already enrolled on this account."
        case .maximumSecondFactorCountExceeded: "The maximum allowed number of second factors on a user has been exceeded."
        case .unsupportedFirstFactor:
            "Enrolling a second factor or signing in with a multi-factor account requires sign-in with a supported first factor."
        case .emailChangeNeedsVerification: "Multi-factor users must always have a verified email."
        case .missingClientIdentifier: "The request does not contain a client identifier."
        case .missingOrInvalidNonce: "The request contains malformed or mismatched credentials."
        case .blockingCloudFunctionError: "Blocking cloud function returned an error."
        case .recaptchaNotEnabled: "reCAPTCHA Enterprise is not enabled for this project."
        case .missingRecaptchaToken: "The backend request is missing the reCAPTCHA verification token."
        case .invalidRecaptchaToken: "The reCAPTCHA verification token is invalid or has expired."
        case .invalidRecaptchaAction: "The reCAPTCHA verification failed due to an invalid action."
        case .missingClientType: "The request is missing a client type or the client type is invalid."
        case .missingRecaptchaVersion: "The request is missing the reCAPTCHA version parameter."
        case .invalidRecaptchaVersion: "The request specifies an invalid version of reCAPTCHA."
        case .invalidReqType: "The request is not supported or is invalid."
        case .recaptchaSDKNotLinked:
            "The reCAPTCHA SDK is not linked to your app. See https://cloud.google.com/recaptcha-enterprise/docs/instrument-ios-apps"
        case .recaptchaSiteKeyMissing:
            "The reCAPTCHA SDK site key wasn't found. See https://cloud.google.com/recaptcha-enterprise/docs/instrument-ios-apps"
        case .recaptchaActionCreationFailed:
            "The reCAPTCHA SDK action class failed to initialize. See https://cloud.google.com/recaptcha-enterprise/docs/instrument-ios-apps"
        case .passwordDoesNotMeetRequirements: "Missing password requirements."
        case .keychainError:
            "An error occurred when accessing the keychain. The NSLocalizedFailureReasonErrorKey field in the NSError.userInfo dictionary will contain more information about the error encountered"
        case .internalError: "An internal error has occurred, print and inspect the error details for more information."
        case .malformedJWT: "Failed to parse JWT. Check the userInfo dictionary for the full token."
        }
    }
}

/// What HearthAuth throws: an ``AuthErrorCode`` in `FIRAuthErrorDomain` with Firebase's
/// message, and the server's explanation when it gave one (why a password is weak, say) as the
/// failure reason.
public struct AuthError: Error, CustomNSError, LocalizedError, Sendable {
    /// The error's code.
    public let code: AuthErrorCode
    /// The server's explanation, when it gave one.
    public let failureReason: String?

    public init(_ code: AuthErrorCode, failureReason: String? = nil) {
        self.code = code
        self.failureReason = failureReason
    }

    public static var errorDomain: String { AuthErrorCode.errorDomain }
    public var errorCode: Int { code.rawValue }
    public var errorUserInfo: [String: Any] {
        var info: [String: Any] = [NSLocalizedDescriptionKey: code.message]
        if let failureReason { info[NSLocalizedFailureReasonErrorKey] = failureReason }
        return info
    }
    public var errorDescription: String? { code.message }

    /// The error for a message code of the Auth REST API (`EMAIL_EXISTS`, `WEAK_PASSWORD : …`).
    init(serverMessage: String) {
        let parts = serverMessage.split(separator: ":", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
        let reason = parts.count > 1 ? parts[1] : nil
        let code: AuthErrorCode =
            switch parts.first ?? "" {
            case "EMAIL_EXISTS": .emailAlreadyInUse
            case "USER_NOT_FOUND", "EMAIL_NOT_FOUND": .userNotFound
            case "INVALID_PASSWORD": .wrongPassword
            case "INVALID_LOGIN_CREDENTIALS", "INVALID_IDP_RESPONSE", "INVALID_PENDING_TOKEN": .invalidCredential
            case "CREDENTIAL_TOO_OLD_LOGIN_AGAIN": .requiresRecentLogin
            case "INVALID_ID_TOKEN": .invalidUserToken
            case "TOKEN_EXPIRED": .userTokenExpired
            case "USER_DISABLED": .userDisabled
            case "WEAK_PASSWORD": .weakPassword
            case "TOO_MANY_ATTEMPTS_TRY_LATER": .tooManyRequests
            case "OPERATION_NOT_ALLOWED", "PASSWORD_LOGIN_DISABLED": .operationNotAllowed
            case "INVALID_EMAIL", "INVALID_IDENTIFIER": .invalidEmail
            case "MISSING_EMAIL": .missingEmail
            case "MISSING_IOS_BUNDLE_ID": .missingIosBundleID
            case "MISSING_ANDROID_PACKAGE_NAME": .missingAndroidPackageName
            case "UNAUTHORIZED_DOMAIN": .unauthorizedDomain
            case "INVALID_CONTINUE_URI": .invalidContinueURI
            case "MISSING_CONTINUE_URI": .missingContinueURI
            case "MISSING_PHONE_NUMBER": .missingPhoneNumber
            case "INVALID_PHONE_NUMBER": .invalidPhoneNumber
            case "MISSING_CODE": .missingVerificationCode
            case "INVALID_CODE": .invalidVerificationCode
            case "MISSING_SESSION_INFO": .missingVerificationID
            case "INVALID_SESSION_INFO": .invalidVerificationID
            case "SESSION_EXPIRED": .sessionExpired
            case "EXPIRED_OOB_CODE": .expiredActionCode
            case "INVALID_OOB_CODE": .invalidActionCode
            case "INVALID_CUSTOM_TOKEN": .invalidCustomToken
            case "CREDENTIAL_MISMATCH": .customTokenMismatch
            case "FEDERATED_USER_ID_ALREADY_LINKED", "PHONE_NUMBER_EXISTS": .credentialAlreadyInUse
            case "ADMIN_ONLY_OPERATION": .adminRestrictedOperation
            default: .internalError
            }
        self.init(code, failureReason: code == .internalError ? serverMessage : reason)
    }

    /// Whether the error means the session is over, so the user is signed out (as the Apple SDK
    /// does when a refresh or reload fails so).
    var endsSession: Bool {
        [.userNotFound, .userDisabled, .invalidUserToken, .userTokenExpired].contains(code)
    }
}
