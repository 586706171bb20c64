/**
 * The "Trust Loupe's certificate" dialog: the CA's fingerprint, subject, validity and file,
 * PEM/DER export, and one row per trust store with its status and install/remove actions.
 *
 * <p>{@link dev.loupe.ui.trust.TrustPort} is what the dialog needs from the rest of Loupe, in plain
 * Java types (the UI does not depend on the certificate authority; the app adapts it). {@link
 * dev.loupe.ui.trust.TrustDialogViewModel} holds the state (JavaFX properties, no nodes) and runs
 * every port call on a background executor, so a slow {@code certutil} never freezes the dialog;
 * {@link dev.loupe.ui.trust.TrustDialog} is the view. Entry point: {@link
 * dev.loupe.ui.trust.TrustDialog#show(javafx.stage.Window, TrustPort)}.
 */
package dev.loupe.ui.trust;
